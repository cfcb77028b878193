"""A task package is a read-only input: what an attempt changes, it changes in its own copy.

Upstream pre_exec scripts write into the package they run from (a populator regenerates
`sources/*_snapshot.json` and `references/ground_truth.json` next to itself, found through
`__file__`). Run in place, two identical commands would get different cell keys, a regenerated
fixture would replace the released one for every later run, and concurrent attempts would race
on the hidden references. So:

- `PackageGuard` takes the bytes' digest of every package file (the files `content_hash` reads,
  and the task file) before anything runs; `check()` after the attempt raises `PackageChanged`
  naming every file added, removed or rewritten.
- `attempt_copy` copies a task (its task file and package, in its own layout, every file
  writable) into the attempt's folder and loads it from there: pre_exec runs in the copy, and
  the copy, references regenerated, is the task the attempt injects and judges. Links are
  copied as links when they are relative and stay in the package, and a link outside the
  hidden folders only when it leads to no hidden file; others are left out (one added after the
  catalog checked the package could turn the rubric into a plain source file, or lead back
  into the original).
- `keep_hidden_only` prunes the copy at the end to its hidden references (what the supervisor
  judged against), beside `package.json` naming what pre_exec changed.

Services need no copy: they run inside the container on the files injected there.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from clawmark.catalog.package import load_task
from clawmark.fsio import atomic_write_text
from clawmark.taskenv.errors import TaskEnvError
from clawmark.taskenv.container_layout import is_hidden

MANIFEST = "package.json"
TASK_FILE_NAME = "<task file>"


class PackageChanged(TaskEnvError):
    """The task package changed while an attempt ran: its cell key no longer names what ran."""

    def __init__(self, package: Path, files: list[str]) -> None:
        shown = ", ".join(files[:20]) + (f" and {len(files) - 20} more" if len(files) > 20 else "")
        super().__init__(f"task package {package} changed during the attempt "
                         f"(it must stay a read-only input): {shown}")
        self.package, self.files = package, files


def file_digests(task) -> dict[str, str]:
    """Package-relative name -> sha256 of every file `content_hash` reads, plus the task file."""
    digests = {p.relative_to(task.package_dir).as_posix(): _sha256(p) for p in task.package_files()}
    digests[TASK_FILE_NAME] = _sha256(task.task_file)
    return digests


def changed_files(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Names added, removed or rewritten between two `file_digests`."""
    return sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))


class PackageGuard:
    """The package's file digests, taken now; `check()` raises PackageChanged if any differ."""

    def __init__(self, task) -> None:
        self.task = task
        self.digests = file_digests(task)

    def changed(self) -> list[str]:
        return changed_files(self.digests, file_digests(self.task))

    def check(self) -> None:
        if changed := self.changed():
            raise PackageChanged(self.task.package_dir, changed)


def attempt_copy(task, dest: Path):
    """The task loaded from a fresh copy of it under `dest` (emptied first), in its own layout."""
    dest = Path(dest)
    shutil.rmtree(dest, ignore_errors=True)
    if task.layout == "folder":
        package = dest / task.package_dir.name
        entry = package / task.task_file.relative_to(task.package_dir)
    else:  # tasks/<category>/<id>.yaml + injection/<category>/<id>/
        category = task.task_file.parent.name
        package = dest / "injection" / category / task.package_dir.name
        entry = dest / "tasks" / category / task.task_file.name
    shutil.copytree(task.package_dir, package, symlinks=True, ignore=_unsafe_links(task))
    if not entry.exists():
        entry.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(task.task_file, entry)
    for path in [package, *(p for p in package.rglob("*") if not p.is_symlink())]:
        path.chmod(0o755 if path.is_dir() else (path.stat().st_mode & 0o777) | 0o600)
    return load_task(entry)


def reload(task):
    """The task read again from its files (after pre_exec rewrote them)."""
    return load_task(task.task_file)


def keep_hidden_only(copy, dest: Path, original_digests: dict[str, str]) -> list[str]:
    """Prune an attempt's copy (made under `dest`) to its hidden references and write
    `dest/package.json` (task id, what pre_exec changed relative to the package); the names kept."""
    dest = Path(dest)
    after = file_digests(copy)
    roots = [copy.package_dir / "references", *copy.reference_files]
    kept = {p for root in roots for p in ([root] if root.is_file() else root.rglob("*") if root.is_dir() else [])
            if p.is_file()}
    for path in sorted(dest.rglob("*"), reverse=True):
        if path.is_file() and path not in kept:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    names = sorted(p.relative_to(copy.package_dir).as_posix() for p in kept)
    record = {"task_id": copy.task_id, "package": copy.package_dir.relative_to(dest).as_posix(),
              "changed_by_pre_exec": changed_files(original_digests, after), "kept": names}
    atomic_write_text(dest / MANIFEST, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    return names


def _unsafe_links(task):
    """copytree's `ignore`: the links of a folder that are absolute, dangling, lead out of the
    package, or lead from a folder the executor gets to a hidden file."""
    package, hidden = task.package_dir.resolve(), task.hidden_paths()

    def unsafe(folder: str, names: list[str]) -> set[str]:
        links = [Path(folder) / name for name in names if (Path(folder) / name).is_symlink()]
        public_folder = not is_hidden(Path(folder), hidden)
        return {link.name for link in links
                if link.readlink().is_absolute() or not link.exists()
                or not link.resolve().is_relative_to(package) or (public_folder and is_hidden(link, hidden))}

    return unsafe


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(2**20):
            digest.update(chunk)
    return digest.hexdigest()
