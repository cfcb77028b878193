"""Prefect tasks for the stages of a sweep: each is one call into clawmark's core.

Retries happen here (Prefect's job); what counts as done is the committed row (the core's job).
The attempt stage deliberately has no Prefect result cache: the committed row IS the cache of a
cell. A second cache keyed by cell outside the result store can disagree with it (a new results
folder, a deleted or rerun row would still hit a stale entry and skip the run), so a flow run
retried from the UI re-plans from the store and runs exactly the cells without a row.
"""

from __future__ import annotations

from typing import Any

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from clawmark.results import ResultStore
from clawmark.results.history import keep_replaced
from clawmark.sweeps import Cell, SweepPlan
from clawmark.sweeps.cell_preflight import disk_preflight
from clawmark.sweeps.engine_gate import engine_back
from clawmark.sweeps.slots import slot_lease_s, slots_of
from flows.attempt import retry_infra_only, run_attempt
from flows.slot_lease import held_slots


# An attempt turns every expected failure into a row, and its stages retry their own
# infrastructure failures (flows/attempt.py); what escapes it is the store failing under the
# record stage (retried once, as infra) or a bug of ours (not retried).
@task(name="attempt", retries=1, retry_delay_seconds=[15], retry_condition_fn=retry_infra_only, cache_policy=NO_CACHE,
      task_run_name="attempt {cell.track} {cell.instance_id} {cell.claw} {cell.model} s{cell.seed}")
def run_cell(plan: SweepPlan, cell: Cell, store: ResultStore, gateway: Any, hand_over_s: float = 0.0) -> dict[str, Any]:
    """One cell of either track, end to end, its stages as nested task runs, holding a Docker
    slot of its engine and a model slot of its provider (Prefect global concurrency limits,
    shared by every worker), kept `hand_over_s` for this process's next cell of the same slots;
    returns the committed row's headline."""
    disk_preflight(store.artifacts_root)  # below the floor: prune instance images, wait, or DiskLow (infra)
    keep_replaced(store, plan.spec.sweep_id, cell.cell_key)  # a retried or forced cell's old row stays readable
    with held_slots(slots_of(cell.model), slot_lease_s(), hand_over_s):
        # Checked again here, not only when the cell was submitted: on a loaded machine the task
        # can start seconds later, and the engine may have gone away in between.
        engine_back(get_run_logger())
        row = run_attempt(plan, cell, store, gateway)
    return {"cell_key": row.cell_key, "task_id": row.task_id, "claw": row.claw, "model": row.model,
            "status": str(row.status), "cost_usd": row.cost_usd}


@task(name="clear-partial", cache_policy=NO_CACHE)
def clear_partial(store: ResultStore, sweep_id: str) -> list[str]:
    """Artifact folders of cells that never committed a row (a crash mid-attempt)."""
    return store.clear_partial(sweep_id)


@task(name="compact", cache_policy=NO_CACHE)
def compact(store: ResultStore, sweep_id: str) -> int:
    """Fold the sweep's per-cell row files into one file: reads of a large sweep stay fast."""
    return store.compact(sweep_id)
