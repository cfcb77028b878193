"""Bounded readers of a claw's session files (hostile input: any size, any bytes, any JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clawmark.jsontypes import JsonValue

MAX_FILE_BYTES = 32 * 2**20  # a session file past this is read up to here (the judge shows far less)


def read_text(path: Path) -> str:
    """The file's text up to MAX_FILE_BYTES; '' when it is not a regular file (a symlink is not)."""
    if path.is_symlink() or not path.is_file():
        return ""
    with path.open("rb") as handle:
        return handle.read(MAX_FILE_BYTES).decode("utf-8", errors="replace")


def load_json(path: Path) -> JsonValue:
    try:
        return json.loads(read_text(path))
    except ValueError:
        return None


def json_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file, one a line; other lines (broken, cut, not objects) are skipped."""
    found = []
    for line in read_text(path).splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found
