"""Typed read/write failures of the result store."""

from __future__ import annotations

import errno
from dataclasses import dataclass

_NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})


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


class ResultsDiskFull(OSError):
    """The disk under the results has no space left: the sweep stops scheduling (every further
    cell would fail the same way); committed rows are whole, the cells without one run next time."""

    def __init__(self, root: str, not_run: int) -> None:
        super().__init__(errno.ENOSPC, f"results disk full under {root}: the sweep stopped with {not_run} cell(s) "
                                       "not run (no row); free space and run the sweep again - committed rows are kept")


def is_disk_full(exc: BaseException | None) -> bool:
    """Whether an exception (or one it was raised from) says the disk or quota is full."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in _NO_SPACE:
            return True
        exc = exc.__cause__ or exc.__context__
    return False
