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


class ConfigMismatch(RuntimeError):
    """A sweep is resumed with a resolved config that differs from the one it started with."""

    def __init__(self, sweep_id: str, pinned: str, offered: str, path: str,
                 differences: list[str] | None = None) -> None:
        self.sweep_id, self.pinned, self.offered = sweep_id, pinned, offered
        self.differences = differences or []
        shown = "; ".join(self.differences[:8]) + (" …" if len(self.differences) > 8 else "")
        super().__init__(
            f"sweep {sweep_id!r} was started with config {pinned} ({path}); this run resolves to "
            f"{offered}" + (f", differing in {shown}" if shown else "") +
            ". Start it under a new sweep id (`clawmark sweep SPEC --fork NEW_ID`), or re-pin on purpose."
        )
