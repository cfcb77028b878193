"""The coordinator's part of every sweep flow, written once: pin the protocol, take the sweep's
lease, plan, clear what a killed earlier run left, run the chosen cells through the core
scheduler (clawmark/sweeps/scheduler.py), raise what stopped it, compact, and the headline.

`sweep` (local), `rerun-failed` and `sweep-pool` differ only in the cells they choose and in how
their cells run (`run`: a local task per cell or a pool deployment run per cell)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prefect import get_run_logger

from analysis.pareto import cost_accuracy
from clawmark.results import ResultStore
from clawmark.results.lease import SweepLease
from clawmark.results.location import open_store
from clawmark.runtime.janitor import reap_sweep
from clawmark.settings import settings
from clawmark.sweeps import Cell, SweepPlan, SweepSpec, plan_sweep
from clawmark.sweeps.plan import pin_protocol
from clawmark.sweeps.scheduler import Schedule
from flows.limits import ensure_limits
from flows.sweep_tasks import clear_partial, compact

RunCells = Callable[[SweepPlan, list[Cell]], Schedule]


@dataclass
class Coordinated:
    plan: SweepPlan
    cells: list[Cell]  # the cells this run chose
    schedule: Schedule


def results_store(results_dir: str | None) -> ResultStore:
    """A local folder or any pyarrow / fsspec filesystem URL (clawmark.results.location)."""
    return open_store(results_dir or settings().results_dir)


def headline(store: ResultStore, sweep_id: str) -> list[dict[str, Any]]:
    """pass@1 with its bootstrap CI and cost per claw × model (errors counted, not failed)."""
    frame = store.read(sweep_id)
    return [] if frame.empty else cost_accuracy(frame).to_dict("records")


def pending(plan: SweepPlan) -> list[Cell]:
    return plan.pending


def coordinate(spec: SweepSpec, store: ResultStore, run: RunCells, *, choose: Callable[[SweepPlan], list[Cell]] = pending,
               force: bool = False, retry_errors: int = 0, local: bool = True, what: str = "") -> Coordinated:
    """Run the cells `choose` picks from the plan through `run`, as the one coordinator of the
    sweep. `local`: this machine's engine runs the cells, so the containers and artifact folders a
    killed earlier run left are cleared first (a pool's workers clear their own: one may still run
    a cell of an earlier coordinator)."""
    pin_protocol(spec, store)
    with SweepLease(store, spec.sweep_id):  # a second run of this sweep is refused, not raced
        plan = plan_sweep(spec, store, force=force, retry_errors=retry_errors)
        cells = choose(plan)
        if local:
            reap_sweep(spec.sweep_id)  # containers a killed earlier run of this sweep left behind
            clear_partial(store, spec.sweep_id)
        get_run_logger().info("sweep %s%s: %d cells, %d already committed, %d to run (%d error rows retried)",
                              spec.sweep_id, what, len(plan.cells), len(plan.done), len(cells), len(plan.retry))
        ensure_limits(spec.models, spec.max_parallel)
        schedule = run(plan, cells)
        schedule.raise_if_stopped(store.root)  # before compaction: it writes to that disk
        compact(store, spec.sweep_id)
    return Coordinated(plan, cells, schedule)
