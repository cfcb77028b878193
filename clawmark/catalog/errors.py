"""Typed catalog errors: every one names the file, the field and what was expected."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError


class CatalogError(Exception):
    """A task, instance or suite file that cannot be loaded.

    `str()` is one line `FILE[:LINE]: FIELD: expected EXPECTED`, fit for a CLI error line.
    """

    def __init__(self, file: str | Path, field: str, expected: str, line: int | None = None):
        self.file = str(file)
        self.field = field
        self.expected = expected
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.field}: expected {self.expected}"


class PathEscapeError(CatalogError):
    """A declared resource path leaves its task package (absolute, `..`, or a symlink out)."""


class UnknownTask(CatalogError):
    """A suite names a task or instance id the catalog does not hold."""


def from_validation(file: str | Path, err: ValidationError, line: int | None = None,
                    prefix: str = "") -> CatalogError:
    """The first problem of a pydantic error as a CatalogError (one line, no traceback)."""
    first = err.errors()[0]
    field = prefix + ".".join(str(p) for p in first["loc"]) if first["loc"] else (prefix or "<root>")
    return CatalogError(file, field.rstrip("."), _expected(first), line)


def _expected(problem: dict) -> str:
    kind = problem["type"]
    if kind == "missing":
        return "a value (required field is missing)"
    if kind == "extra_forbidden":
        return "no such field (unknown key)"
    if kind == "string_too_short":
        return "a non-empty string"
    got = repr(problem.get("input"))
    got = got if len(got) <= 60 else got[:57] + "..."
    message = problem["msg"].removeprefix("Value error, ").removeprefix("Input should be ")
    return f"{message[0].lower()}{message[1:]} (got {got})"


def read_yaml_mapping(file: "Path", *, max_bytes: int, what: str, root: str) -> dict:
    """A YAML file that must hold a mapping, read with a size bound; every failure is one
    CatalogError naming the file (`what`: e.g. "task YAML"; `root`: what the mapping must be)."""
    try:
        if file.stat().st_size > max_bytes:
            raise CatalogError(file, "<file>", f"a {what} of at most {max_bytes} bytes")
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(file, "<file>", f"a readable UTF-8 {what} ({exc.__class__.__name__})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise CatalogError(file, "<yaml>", f"valid YAML ({getattr(exc, 'problem', None) or exc})",
                           mark.line + 1 if mark else None) from None
    if not isinstance(data, dict):
        raise CatalogError(file, "<root>", root)
    return data
