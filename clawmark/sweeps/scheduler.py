"""One scheduling policy for a sweep's cells, whether they run in this process or on a work pool.

`schedule` keeps up to `max_parallel` cells in flight through a `submit` callable and decides
everything else the same way for both: the next cell starts as soon as one ends (no waves
waiting for their slowest cell); nothing more starts once the sweep's spend reaches its cap
(committed spend read once at start, then each new row's cost added: a forced or retried cell
counts twice, as it was paid twice); a run that ended without a row is submitted again up to
`max_resubmits` times (the pool's lost workers; a local crash is not resubmitted: the next run of
the sweep redoes it); a run that ends with the results disk full or the engine down stops the
sweep: nothing more starts, the runs in flight end, and `Schedule.raise_if_stopped` raises what
the sweep reports. Which cells run (pending, forced, error rows retried under `--retry-errors`)
is decided before, by planning (clawmark.sweeps.plan and retry); here only how they run.

Flows differ only in what `submit` returns: a Prefect task future locally (flows/sweep.py), a
`cell` deployment run on a pool (flows/pool.py). No Prefect here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from clawmark.results import AttemptRow, ResultStore
from clawmark.results.errors import ResultsDiskFull
from clawmark.sweeps.engine_gate import engine_stayed_down
from clawmark.sweeps.plan import Cell
from clawmark.sweeps.spend import SpendMeter
from clawmark.sweeps.spec import SweepSpec

DISK_FULL, ENGINE_DOWN = "ResultsDiskFull", "EngineStayedDown"  # what stops a sweep (a pool run's final state name)


@dataclass(frozen=True)
class Committed:
    """The cell has its (new) row; its cost counts against the cap (NaN: unpriced, adds nothing)."""

    cost_usd: float | None


@dataclass(frozen=True)
class NoRow:
    """The run ended without a row (a crash, a worker that died): worth another submission."""

    why: str


@dataclass(frozen=True)
class Stop:
    """The run ended in a way every next cell would share: the sweep stops (DISK_FULL, ENGINE_DOWN)."""

    reason: str
    why: str


Ended = Committed | NoRow | Stop


class Run(Protocol):
    """One submitted run of a cell."""

    cell: Cell

    def ended(self) -> Ended | None:
        """None while it runs."""


class SweepStopping(Exception):
    """Raised by `submit` when no cell can start (the engine stayed down): the sweep stops."""

    def __init__(self, reason: str, why: str) -> None:
        super().__init__(why)
        self.reason = reason


Submit = Callable[[Cell], Run]
Logger = logging.Logger | logging.LoggerAdapter


@dataclass
class Schedule:
    """What a sweep's scheduling did."""

    cells: int
    ran: int = 0  # cells that committed their row
    resubmitted: int = 0
    given_up: int = 0  # cells left without a row after their last submission
    stopped: str | None = None  # DISK_FULL or ENGINE_DOWN

    @property
    def not_run(self) -> int:
        return self.cells - self.ran

    def raise_if_stopped(self, results_root: str) -> None:
        """Raise what stopped the sweep, naming the cells left without a row (the next run does them)."""
        if self.stopped == DISK_FULL:
            raise ResultsDiskFull(results_root, self.not_run)
        if self.stopped == ENGINE_DOWN:
            raise engine_stayed_down(self.not_run)


@dataclass
class Scheduler:
    submit: Submit
    sweep_id: str
    max_parallel: int
    meter: SpendMeter
    logger: Logger
    poll_s: float = 0.2
    max_resubmits: int = 0
    refresh: Callable[[list[Run]], None] | None = None  # once per poll, before runs are asked (one API call)
    wait: Callable[[list[Run], float], None] | None = None  # until one run may have ended (default: sleep)
    tries: dict[str, int] = field(default_factory=dict)  # cell key -> submissions after its first

    def run(self, cells: list[Cell]) -> Schedule:
        done, queue, flying = Schedule(len(cells)), list(cells), []
        while queue or flying:
            self._start(queue, flying, done)
            if not self._reap(flying, done):
                if self.wait is not None and flying:
                    self.wait(list(flying), self.poll_s)  # the next cell starts as soon as a slot frees
                else:
                    time.sleep(self.poll_s)
        return done

    def _start(self, queue: list[Cell], flying: list[Run], done: Schedule) -> None:
        while queue and len(flying) < self.max_parallel and not done.stopped and not self.meter.exhausted:
            self._submit(queue.pop(0), flying, done)
        if done.stopped and queue:
            self.logger.error("sweep %s stopped (%s): %d cells not submitted", self.sweep_id, done.stopped, len(queue))
            queue.clear()
        if self.meter.exhausted and queue:
            self.logger.warning("sweep %s: cost cap %.4f USD reached (%.4f spent); %d cells not submitted",
                                self.sweep_id, self.meter.cap_usd, self.meter.spent_usd, len(queue))
            queue.clear()

    def _submit(self, cell: Cell, flying: list[Run], done: Schedule) -> None:
        try:
            flying.append(self.submit(cell))
        except SweepStopping as stop:
            self.logger.error("cell %s not started: %s", cell.cell_key, stop)
            done.stopped = done.stopped or stop.reason

    def _reap(self, flying: list[Run], done: Schedule) -> bool:
        """Count the runs that ended; False when none did."""
        if self.refresh is not None and flying:
            self.refresh(list(flying))
        ended = [(run, outcome) for run in flying if (outcome := run.ended()) is not None]
        for run, outcome in ended:
            flying.remove(run)
            self._count(run.cell, outcome, flying, done)
        return bool(ended)

    def _count(self, cell: Cell, outcome: Ended, flying: list[Run], done: Schedule) -> None:
        if isinstance(outcome, Committed):
            self.meter.add(outcome.cost_usd)
            done.ran += 1
        elif isinstance(outcome, Stop):
            self.logger.error("cell %s: %s", cell.cell_key, outcome.why)
            done.stopped = done.stopped or outcome.reason
        elif (tries := self.tries.get(cell.cell_key, 0)) < self.max_resubmits and not self.meter.exhausted \
                and not done.stopped:
            self.logger.warning("cell %s: %s; submitting it again", cell.cell_key, outcome.why)
            self.tries[cell.cell_key] = tries + 1
            done.resubmitted += 1
            self._submit(cell, flying, done)
        else:
            self.logger.error("cell %s: %s; no row after %d runs: the next run of the sweep redoes it",
                              cell.cell_key, outcome.why, tries + 1)
            done.given_up += 1


def replaced_rows(store: ResultStore, sweep_id: str, cells: list[Cell]) -> dict[str, str]:
    """cell key -> attempt id of the committed row of each cell about to run again (forced or
    retried): only a row with another id counts as the cell's new row."""
    frame = store.read(sweep_id, columns=["cell_key", "attempt_id"])
    if frame.empty:
        return {}
    chosen = {c.cell_key for c in cells}
    return {k: a for k, a in zip(frame["cell_key"], frame["attempt_id"]) if k in chosen}


def new_row(store: ResultStore, sweep_id: str, cell_key: str, replaces: str | None) -> AttemptRow | None:
    """The cell's committed row, unless it is the one this run was sent to replace (`replaces`:
    its attempt id); None before."""
    if not store.has(sweep_id, cell_key):
        return None
    row = store.read_row(sweep_id, cell_key)
    return None if replaces is not None and row.attempt_id == replaces else row


def schedule(spec: SweepSpec, store: ResultStore, cells: list[Cell], submit: Submit, logger: Logger, *,
             poll_s: float = 0.2, max_resubmits: int = 0, refresh: Callable[[list[Run]], None] | None = None,
             wait: Callable[[list[Run], float], None] | None = None) -> Schedule:
    """Run `cells` through `submit` under the sweep's slots and cost cap, its spend read from the
    store. `wait(runs, poll_s)`: returns once one of `runs` may have ended, or after `poll_s`."""
    meter = SpendMeter.for_sweep(spec, store)
    return Scheduler(submit, spec.sweep_id, spec.max_parallel, meter, logger, poll_s, max_resubmits, refresh,
                     wait).run(cells)
