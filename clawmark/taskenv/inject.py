"""Copy a task package into its container: sources (executor-owned), skills (root-owned,
readable), services (root-only). Hidden files are filtered out of every copy."""

from __future__ import annotations

import hashlib
from pathlib import Path

from clawmark.catalog.errors import CatalogError
from clawmark.taskenv.container_layout import SERVICES_DIR, SKILLS_DIR, SOURCES_DIR, folder_files, is_hidden

ROOT = (0, 0)


def inject_sources(sandbox, task, snapshot: bool, owner: tuple[int, int]) -> list[str]:
    """`task.source_files(snapshot)` to SOURCES_DIR, keeping their layout under sources/."""
    hidden = task.hidden_paths()
    files = {p.relative_to(task.sources_dir).as_posix(): p for p in task.source_files(snapshot)
             if not is_hidden(p, hidden)}
    if files:
        sandbox.copy_files_in(files, SOURCES_DIR, owner)
    return sorted(files)


def inject_skills(sandbox, task, base_skills: list[Path]) -> list[str]:
    """Base skills, then the task's own (a task skill wins over a base one of the same name);
    each folder copied whole, whatever its entry file, as upstream's `docker cp` does."""
    folders = {folder.name: folder for folder in base_skills}
    folders.update(task.skill_dirs)
    hidden, files = task.hidden_paths(), {}
    for name, folder in folders.items():
        if not folder.is_dir():
            raise CatalogError(folder, "base_skills", "a skill folder")
        files.update(folder_files(folder, hidden, prefix=f"{name}/"))
    if files:
        sandbox.copy_files_in(files, SKILLS_DIR, ROOT)
    _link_commands(sandbox, [name for name, folder in folders.items() if folder in base_skills])
    return sorted(folders)


def _link_commands(sandbox, base_names: list[str]) -> None:
    """A base skill's `bin/` commands go on PATH (upstream has `agent-browser` there); a task's
    own skills never put anything on PATH."""
    if not base_names:
        return
    script = 'for f in "$@"; do [ -f "$f" ] && [ -x "$f" ] && ln -sf "$f" /usr/local/bin/; done; true'
    commands = [f"{SKILLS_DIR}/{name}/bin/*" for name in base_names]
    sandbox.exec(["bash", "-c", f"shopt -s nullglob; set -- {' '.join(commands)}; {script}"], timeout_s=60,
                 user="0", workdir="/")


def inject_services(sandbox, task) -> dict[str, str]:
    """Each service folder to SERVICES_DIR/<path>; returns name -> container folder."""
    hidden, files, where = task.hidden_paths(), {}, {}
    for service in task.services:
        rel = service.folder.relative_to(task.package_dir / "services").as_posix()
        files.update(folder_files(service.folder, hidden, prefix=f"{rel}/"))
        where[service.spec.name] = f"{SERVICES_DIR}/{rel}"
    if files:
        sandbox.copy_files_in(files, SERVICES_DIR, ROOT)
    return where


def skills_identity(base_skills: list[Path]) -> list[str]:
    """`name@digest` of each base skill folder, for the cell key: an edited skill re-keys its cells."""
    out = []
    for folder in base_skills:
        digest = hashlib.sha256()
        for rel, path in folder_files(Path(folder), []).items():
            digest.update(rel.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
        out.append(f"{Path(folder).name}@{digest.hexdigest()[:12]}")
    return sorted(out)
