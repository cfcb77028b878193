"""Typed catalog errors: every one names the file, the field and what was expected."""

from __future__ import annotations

from pathlib import Path

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
