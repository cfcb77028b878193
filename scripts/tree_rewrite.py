"""Rewrite references across the tracked text files: what scripts/place_tests.py (moved tests) and
scripts/follow_renames.py (renamed modules) both do once they know what moved where."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEXT = (".py", ".md", ".sh", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".txt", "Makefile")
NOT_OURS = ("tasks_catalog/swe/repos/", "tests/fixtures/")  # fixture repositories keep their own text

Substitution = tuple[re.Pattern[str], str]


def moved_file_substitutions(old: str, new: str) -> list[Substitution]:
    """`old` -> `new` (repository paths of a .py file), as a dotted module name and as a path."""
    old_mod, new_mod = old[:-3].replace("/", "."), new[:-3].replace("/", ".")
    return [(re.compile(r"(?<![\w.])" + re.escape(old_mod) + r"(?!\w)"), new_mod),
            (re.compile(r"(?<![\w./])" + re.escape(old) + r"(?!\w)"), new)]


def rewrite_tracked(subs: list[Substitution], *, skip: Path, write: bool = True) -> Iterator[tuple[str, str, bool]]:
    """Every tracked text file but `skip` (the script naming the old places): (name, its text after
    the substitutions, whether that changed it), written back when changed unless `write` is False."""
    names = subprocess.run(["git", "ls-files"], cwd=REPO, check=True, capture_output=True, text=True).stdout.split()
    for name in names:
        path = REPO / name
        if not name.endswith(TEXT) or name.startswith(NOT_OURS) or path == skip.resolve() or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        new_text = text
        for pattern, replacement in subs:
            new_text = pattern.sub(replacement, new_text)
        changed = new_text != text
        if changed and write:
            path.write_text(new_text, encoding="utf-8", errors="surrogateescape")
        yield name, new_text, changed
