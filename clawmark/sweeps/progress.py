"""Where a sweep stands, read from the store alone: what `clawmark sweep` shows live and
`clawmark sweep status` prints. New row files are read once each (a poll lists files and reads
only rows it has not seen), so watching a 10,000-cell sweep stays cheap."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import pyarrow.fs as pafs

from clawmark.results import ResultStore
from clawmark.results.lease import cell_lease_dir
from clawmark.results.status import SUCCESS_STATUSES, Status, is_error
from clawmark.stopwatch import Stopwatch


@dataclass
class SweepCounts:
    planned: int
    done: int = 0
    errors: int = 0
    running: int = 0
    spent_usd: float = 0.0
    statuses: Counter = field(default_factory=Counter)

    skipped: int = 0  # committed before this run started (a resume reuses them)

    @property
    def left(self) -> int:
        return max(0, self.planned - self.done)

    @property
    def done_now(self) -> int:
        return self.done - self.skipped


@dataclass
class FinishedCell:
    cell_key: str
    task_id: str
    claw: str
    model: str
    status: str
    cost_usd: float
    reason: str = ""  # why it is not a success, one line (the row's error message or failure reason)
    number: int = 0  # the sweep's done count once this cell was counted (its [k/n])


def _reason(row) -> str:
    if row.status in SUCCESS_STATUSES:
        return ""
    text = row.error_message or row.failure_reason or ""
    return " ".join(text.split())[:REASON_CHARS]


REASON_CHARS = 240


class SweepWatcher:
    """Counts of one sweep; `poll()` returns the cells finished since the last poll."""

    def __init__(self, store: ResultStore, sweep_id: str, planned: set[str] | None = None,
                 rerun: set[str] | None = None):
        """`rerun`: cells this run runs again though they have a row (`--force`): their old row
        is not counted, and their new one is told from it by the row file's modification time."""
        self.store, self.sweep_id = store, sweep_id
        self.planned = planned
        self.rerun = rerun or set()
        self.replaced: dict[str, int] = {}  # rerun cell -> mtime_ns of the row it replaces
        self.stale_compacted: frozenset[str] = frozenset()  # rerun cells whose old row is compacted
        self.compacted_mtime: int | None = None
        self.seen: set[str] = set()
        self.counts = SweepCounts(planned=len(planned) if planned is not None else 0)
        self.watch = Stopwatch()
        self.baseline = 0

    def prime(self) -> None:
        """Count what is already committed (a resume) in one read of the table, without
        reporting it as newly finished."""
        frame = self.store.read(self.sweep_id, columns=["cell_key", "status", "cost_usd"])
        if self.planned is not None:
            frame = frame[frame["cell_key"].isin(self.planned)]
        if self.rerun:
            frame = frame[~frame["cell_key"].isin(self.rerun)]
            self.replaced = {key: mtime for key, mtime in self.store.row_mtimes(self.sweep_id).items()
                             if key in self.rerun}
            self.stale_compacted = self.store.compacted_keys(self.sweep_id) & self.rerun
            self.compacted_mtime = self.store.compacted_mtime(self.sweep_id)
        self.seen |= set(frame["cell_key"])
        for status, cost in zip(frame["status"], frame["cost_usd"]):
            self._count(str(status), float(cost))
        self.counts.running = self._running()
        if self.planned is None:
            self.counts.planned = self.counts.done
        self.baseline = self.counts.skipped = self.counts.done

    def poll(self) -> list[FinishedCell]:
        fresh = [k for k in self._committed() - self.seen if self.planned is None or k in self.planned]
        finished = [self._read(key) for key in sorted(fresh)]
        self.counts.running = self._running()
        if self.planned is None:
            self.counts.planned = self.counts.done
        return finished

    def _committed(self) -> set[str]:
        if not self.rerun:
            return self.store.completed_cells(self.sweep_id)
        written = self.store.row_mtimes(self.sweep_id)
        rewritten = {key for key, mtime in written.items() if mtime > self.replaced.get(key, -1)}
        compacted = self.store.compacted_keys(self.sweep_id)
        if self.store.compacted_mtime(self.sweep_id) == self.compacted_mtime:  # not folded again since this run began
            compacted -= self.stale_compacted
        return rewritten | compacted

    def _read(self, key: str) -> FinishedCell:
        row = self.store.read_row(self.sweep_id, key)
        self.seen.add(key)
        self._count(str(row.status), row.cost_usd)
        return FinishedCell(key, row.task_id, row.claw, row.model, str(row.status), row.cost_usd, _reason(row),
                            self.counts.done)

    def _count(self, status: str, cost_usd: float) -> None:
        self.counts.done += 1
        self.counts.errors += int(is_error(Status(status)))
        self.counts.statuses[status] += 1
        if math.isfinite(cost_usd):
            self.counts.spent_usd += cost_usd

    def _running(self) -> int:
        """Cells with an artifact folder here (this machine's attempts) or a lease in the store
        (a pool's workers, wherever they run) and no row yet."""
        folder = self.store.artifacts_root / self.sweep_id
        local = {cell.name for cell in folder.iterdir() if cell.is_dir()} if folder.is_dir() else set()
        return len({k for k in local | self._leased() if k not in self.seen
                    and (self.planned is None or k in self.planned)})

    def _leased(self) -> set[str]:
        selector = pafs.FileSelector(cell_lease_dir(self.store, self.sweep_id), allow_not_found=True)
        return {i.base_name.removesuffix(".json") for i in self.store.fs.get_file_info(selector)
                if i.type == pafs.FileType.File and i.base_name.endswith(".json")}

    def rate_per_min(self) -> float:
        minutes = self.watch.elapsed() / 60
        fresh = self.counts.done - self.baseline
        return fresh / minutes if minutes > 0 and fresh else 0.0

    def eta_s(self) -> float:
        rate = self.rate_per_min()
        return self.counts.left / rate * 60 if rate else math.nan
