"""Typed read/write failures of the result store."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BadFile:
    """A row file that could not be read, with the reader's error."""

    path: str
    error: str


class CorruptResults(RuntimeError):
    """Some row files could not be read; `bad` names each with its error."""

    def __init__(self, bad: list[BadFile]) -> None:
        self.bad = bad
        names = ", ".join(f"{b.path} ({b.error})" for b in bad[:5])
        super().__init__(f"{len(bad)} unreadable result file(s): {names}")


class SchemaMismatch(ValueError):
    """Rows offered for import do not fit RESULTS_SCHEMA (unknown column, wrong sweep, duplicate key)."""
