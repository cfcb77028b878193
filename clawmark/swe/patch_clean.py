"""Cleaning an extracted diff: whole file sections are kept or dropped, never edited.

Dropped (matched on the file NAME, never a substring of the path — `my_setup.py.txt` stays):
- Python setup files and every lock file: the evaluator runs in a prebuilt environment, so
  edits there cannot help and are usually an agent fighting its environment (the Claw-SWE-Bench
  rule). Manifests that real fixes do touch (package.json, Cargo.toml, go.mod) are kept.
- paths with non-ASCII characters (git quotes them; apply tools disagree on them);
- binary sections (`GIT binary patch`, `Binary files ... differ`);
- claw leftovers: newly added persona/memory files or claw state folders, nested repositories.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

SETUP_AND_LOCK_FILES = frozenset({
    "pyproject.toml", "setup.py", "setup.cfg", "Pipfile", "Pipfile.lock", "poetry.lock", "uv.lock",
    "pdm.lock", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb",
    "Cargo.lock", "go.sum", "Gemfile.lock", "composer.lock",
})
SETUP_FILE_PATTERNS = ("requirements*.txt",)
# Files claws write into their workspace (OpenClaw/EDICT persona set, memory, session stores).
CLAW_FILES = frozenset({
    "AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md", "IDENTITY.md", "HEARTBEAT.md", "BOOTSTRAP.md", "MEMORY.md",
})
CLAW_DIRS = frozenset({".openclaw", ".nanobot", ".hermes", ".zeroclaw", ".mini-swe-agent"})
# Precise enough not to catch a real `memory/` or `state/` package of the repository.
CLAW_PATH_PATTERNS = ("memory/????-??-??.md", "state/costs.jsonl")

_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class FileSection:
    """One `diff --git` section of a patch."""

    text: str
    paths: tuple[str, ...]
    is_new: bool

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def header_lines(self) -> list[str]:
        """The lines after `diff --git` up to the first hunk (`@@`), split at newlines only."""
        lines = self.text.split("\n")[1:]
        return lines[:next((i for i, line in enumerate(lines) if line.startswith("@@")), len(lines))]


@dataclass(frozen=True)
class CleanedPatch:
    clean: str
    dropped_files: dict[str, str] = field(default_factory=dict)  # path -> reason


def split_sections(patch: str) -> list[FileSection]:
    """The patch cut at each `diff --git` line (text before the first one is discarded)."""
    chunks = re.split(r"(?m)^(?=diff --git )", patch)
    return [_section(chunk) for chunk in chunks if chunk.startswith("diff --git ")]


def clean_patch(raw: str) -> CleanedPatch:
    """Keep the sections that pass every rule; say why each dropped one went."""
    kept: list[str] = []
    dropped: dict[str, str] = {}
    for section in split_sections(raw):
        reason = drop_reason(section)
        if reason:
            dropped[section.paths[-1] if section.paths else "?"] = reason
        else:
            kept.append(section.text if section.text.endswith("\n") else section.text + "\n")
    return CleanedPatch("".join(kept), dropped)


def drop_reason(section: FileSection) -> str | None:
    header = section.lines[:8]
    if not section.paths:
        return "unparseable header"
    if any(_non_ascii(path) for path in section.paths):
        return "non-ASCII path"
    if any(line.startswith("GIT binary patch") or _binary_marker(line) for line in section.lines):
        return "binary"
    if any(_gitlink_mode(line) for line in header):
        return "nested repository"
    if any(_is_setup_or_lock(path) for path in section.paths):
        return "setup/lock file"
    if section.is_new and any(_is_claw_file(path) for path in section.paths):
        return "claw file"
    return None


def _section(text: str) -> FileSection:
    lines = text.splitlines()
    paths: list[str] = []
    for line in lines[1:]:
        if line.startswith("@@"):
            break
        for prefix in ("--- a/", "+++ b/", "--- \"a/", "+++ \"b/", "rename from ", "rename to ",
                       "copy from ", "copy to "):
            if line.startswith(prefix):
                paths.append(_unquote(line[4:] if prefix[0] in "-+" else line[len(prefix):], prefix[0] in "-+"))
    paths = [p for p in paths if p] or _header_paths(lines[0])
    is_new = any(line.startswith("new file mode") for line in lines[1:6])
    return FileSection(text, tuple(dict.fromkeys(paths)), is_new)


def _unquote(name: str, strip_side: bool) -> str:
    name = name.rstrip("\t")
    if name == "/dev/null":
        return ""
    match = _QUOTED.fullmatch(name)
    if match:
        name = match.group(1)
    return name[2:] if strip_side and name[:2] in ("a/", "b/") else name


def _header_paths(line: str) -> list[str]:
    rest = line.removeprefix("diff --git ")
    quoted = _QUOTED.findall(rest)
    if quoted:
        return [q[2:] for q in quoted]
    half = (len(rest) - 5) // 2
    if rest == f"a/{rest[2:2 + half]} b/{rest[2:2 + half]}":
        return [rest[2:2 + half]]
    left, _, right = rest.partition(" b/")
    return [p for p in (left.removeprefix("a/"), right) if p]


def _gitlink_mode(line: str) -> bool:
    """Mode 160000 (a nested repository) on a mode or index line; never matched inside a hash."""
    if line.startswith(("new file mode ", "deleted file mode ", "old mode ", "new mode ", "index ")):
        return line.split()[-1] == "160000"
    return False


def _non_ascii(path: str) -> bool:
    return not path.isascii() or re.search(r"\\[0-3][0-7]{2}", path) is not None


def _binary_marker(line: str) -> bool:
    return line.startswith("Binary files ") and line.endswith(" differ")


def _is_setup_or_lock(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name in SETUP_AND_LOCK_FILES or any(fnmatch.fnmatchcase(name, pat) for pat in SETUP_FILE_PATTERNS)


def _is_claw_file(path: str) -> bool:
    parts = path.split("/")
    if (len(parts) == 1 and parts[0] in CLAW_FILES) or parts[0] in CLAW_DIRS:
        return True
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in CLAW_PATH_PATTERNS)
