"""Missing content: files of a task package that are not what their names say.

A clone of UniClawBench without `git lfs pull` holds ~130-byte Git LFS pointer files where its
PDFs, images and audio should be; an attempt on such a package measures nothing. What is read:
every file the executor or the supervisor gets (sources/, skills/, services/, references/), the
declared sources, and the rubric. Binary types are checked by their magic bytes, so a truncated
or mislabelled `.pdf` is caught too, not only a pointer.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from clawmark.catalog.task import EVAL_RULE

LFS_HEADER = b"version https://git-lfs.github.com/spec/v1"
LFS_FIX = "git lfs pull (in the clone of the task tree)"
CONTENT_FOLDERS = ("sources", "skills", "services", "references")
_HEAD_BYTES = 64
# Extension -> (what it should be, accepted leading bytes); offset-8 checks are in _MAGIC_AT.
_MAGIC: dict[str, tuple[str, tuple[bytes, ...]]] = {
    ".pdf": ("a PDF", (b"%PDF",)),
    ".png": ("a PNG image", (b"\x89PNG\r\n\x1a\n",)),
    ".jpg": ("a JPEG image", (b"\xff\xd8\xff",)),
    ".jpeg": ("a JPEG image", (b"\xff\xd8\xff",)),
    ".gif": ("a GIF image", (b"GIF87a", b"GIF89a")),
    ".zip": ("a ZIP archive", (b"PK\x03\x04", b"PK\x05\x06")),
    ".docx": ("a Word document (ZIP)", (b"PK\x03\x04",)),
    ".xlsx": ("an Excel workbook (ZIP)", (b"PK\x03\x04",)),
    ".pptx": ("a PowerPoint deck (ZIP)", (b"PK\x03\x04",)),
    ".odt": ("an OpenDocument text (ZIP)", (b"PK\x03\x04",)),
    ".ods": ("an OpenDocument sheet (ZIP)", (b"PK\x03\x04",)),
    ".epub": ("an EPUB book (ZIP)", (b"PK\x03\x04",)),
    ".gz": ("a gzip file", (b"\x1f\x8b",)),
    ".wav": ("a WAV file", (b"RIFF",)),
    ".webp": ("a WebP image", (b"RIFF",)),
    ".mp3": ("an MP3 file", (b"ID3", b"\xff\xfb", b"\xff\xf3", b"\xff\xf2", b"\xff\xe3")),
    ".flac": ("a FLAC file", (b"fLaC",)),
    ".ogg": ("an Ogg file", (b"OggS",)),
    ".sqlite": ("an SQLite database", (b"SQLite format 3\x00",)),
    ".sqlite3": ("an SQLite database", (b"SQLite format 3\x00",)),
}
_MAGIC_AT = {".mp4": ("an MP4 video", 4, b"ftyp"), ".m4a": ("an M4A file", 4, b"ftyp"),
             ".mov": ("a QuickTime video", 4, (b"ftyp", b"moov", b"wide", b"mdat", b"free"))}


class ContentProblem(BaseModel):
    """One file of a package that cannot serve as what it is declared to be."""

    path: str  # relative to the package folder
    problem: str  # e.g. "a Git LFS pointer (131 bytes), not the file"
    fix: str

    def line(self, task_file: Path | str) -> str:
        return f"{task_file}: missing content: {self.path}: {self.problem}; fix: {self.fix}"


def missing_content(task) -> list[ContentProblem]:
    """Every content problem of a loaded task, sorted by path (empty: the package is whole)."""
    package = task.package_dir
    problems: dict[str, ContentProblem] = {}
    for folder in CONTENT_FOLDERS:
        root = package / folder
        if root.is_dir():
            for file in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
                problem = file_problem(file)
                if problem is not None:
                    rel = file.relative_to(package).as_posix()
                    problems[rel] = ContentProblem(path=rel, problem=problem, fix=_fix(problem))
    for declared in _missing_declared_sources(task):
        problems[declared] = ContentProblem(path=declared, problem="declared in `sources:` but not in the package",
                                            fix=f"{LFS_FIX}, or add the file to the package")
    rule = package / EVAL_RULE
    if rule.is_file() and not rule.read_bytes().strip() and EVAL_RULE not in problems:
        problems[EVAL_RULE] = ContentProblem(path=EVAL_RULE, problem="empty: the supervisor has no rubric",
                                             fix="restore the task's eval_rule.md")
    return [problems[k] for k in sorted(problems)]


def file_problem(file: Path) -> str | None:
    """Why `file` is not what its name says, or None: an LFS pointer, or wrong magic bytes."""
    try:
        size = file.stat().st_size
        with file.open("rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError as exc:
        return f"unreadable ({exc.__class__.__name__})"
    if head.startswith(LFS_HEADER):
        return f"a Git LFS pointer ({size} bytes), not the file"
    suffix = file.suffix.lower()
    if suffix in _MAGIC:
        what, magics = _MAGIC[suffix]
        if not head.startswith(magics):
            return f"not {what} (its first bytes are {_show(head)})" if size else f"empty, not {what}"
    elif suffix in _MAGIC_AT:
        what, offset, magics = _MAGIC_AT[suffix]
        if head[offset:offset + 4] not in ((magics,) if isinstance(magics, bytes) else magics):
            return f"not {what} (its first bytes are {_show(head)})" if size else f"empty, not {what}"
    return None


def _fix(problem: str) -> str:
    return LFS_FIX if "LFS" in problem else f"{LFS_FIX}, or replace the file with the real one"


def _show(head: bytes) -> str:
    return repr(head[:16])


def _missing_declared_sources(task) -> list[str]:
    """Declared sources (not URLs) the package lacks, as package-relative paths."""
    out = []
    for declared in task.spec.sources:
        if "://" in declared:
            continue
        rel = declared if declared.startswith("sources/") else f"sources/{declared}"
        if not (task.package_dir / rel).exists():
            out.append(rel.rstrip("/"))
    return out
