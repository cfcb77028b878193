"""One cell of a sweep as its own flow run: what a work pool's workers run for `clawmark sweep --pool`.

The coordinator (flows/pool.py) creates one run of this flow's deployment per pending cell; any
worker of the pool picks it up. A run does nothing when the cell already has a committed row (a
resubmission after a run whose worker died just after its commit; under `--force`, a row other
than the one it was sent to replace) or when the sweep's committed spend has reached its cap (the
cap holds across workers: the live coordinator's count published in the shared store, else the
committed rows, never one process's memory: clawmark/sweeps/spend.py).
Otherwise it holds the cell's lease in the store while it runs, so two runs of one cell never
overlap and the coordinator can tell a run whose worker died.

As a local sweep's cell, it waits for a Docker engine that went away (CLAWMARK_ENGINE_WAIT_S)
and passes the disk preflight (in the attempt stage). Two ends stop the whole sweep, not just
the cell, and are told to the coordinator by the final state's name: the results disk is full
(`ResultsDiskFull`: every other cell would fail alike) and the engine stayed down
(`EngineStayedDown`). Neither leaves a row.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.runtime import flow_run
from prefect.states import Failed
from prefect.utilities.annotations import quote

from blocks.use import use_blocks
from clawmark.results import ResultStore
from clawmark.results.errors import is_disk_full
from clawmark.results.lease import LeaseHeld, cell_lease
from clawmark.results.location import open_store
from clawmark.settings import PROJECT_ROOT
from clawmark.sweeps import Cell, SweepSpec, engine_gate
from clawmark.sweeps.shared_gateway import sweep_gateway
from clawmark.sweeps.plan import plan_cell
from clawmark.sweeps.spend import SpendMeter
from clawmark.sweeps.spec import rebased
from clawmark.sweeps.scheduler import DISK_FULL, ENGINE_DOWN, new_row  # DISK_FULL, ENGINE_DOWN: final state names
from flows.sweep_tasks import run_cell


# Retried: listing races other runs removing their own containers (a container listed, then gone).
@task(name="reap-leaked", cache_policy=NO_CACHE, retries=3, retry_delay_seconds=1)
def reap_leaked() -> int:
    """Containers on this worker's engine whose owning process on this host is gone (a run
    SIGKILLed with its worker): removed before this run adds its own."""
    from clawmark.runtime.janitor import reap

    return len(reap())


def committed(store: ResultStore, sweep_id: str, cell_key: str, replaces: str | None) -> bool:
    """The cell has a row, and not the one this run was sent to replace (`replaces`: its attempt id)."""
    return new_row(store, sweep_id, cell_key, replaces) is not None


@flow(name="cell", log_prints=True)
def cell(spec: dict[str, Any], cell_key: str, results: str, coordinates: dict[str, Any], replaces: str | None = None,
         result_store_block: str | None = None, docker_host_block: str | None = None,
         model_endpoint_blocks: list[str] | None = None, project_root: str | None = None) -> Any:
    """Run the sweep cell `cell_key` of `spec` (a resolved sweep spec) into the store at `results`.
    `coordinates`: the cell's track, instance_id, claw, model and seed (the key is checked
    against them); `replaces`: under `--force`, the attempt id of the committed row to run again;
    `project_root`: the coordinator's checkout, whose paths in `spec` are this worker's own."""
    results = use_blocks(result_store_block, docker_host_block, model_endpoint_blocks) or results
    if project_root:
        spec = rebased(spec, project_root, str(PROJECT_ROOT))
    sweep_spec, store, logger = SweepSpec.model_validate(spec), open_store(results), get_run_logger()
    sweep_id, chosen = sweep_spec.sweep_id, Cell(cell_key=cell_key, **coordinates)
    if committed(store, sweep_id, cell_key, replaces):
        return {"cell_key": cell_key, "outcome": "already committed"}
    if (meter := SpendMeter.for_cell(sweep_spec, store)).exhausted:
        logger.warning("sweep %s: cost cap %.4f USD reached (%.4f committed); cell %s not run",
                       sweep_id, sweep_spec.max_cost_usd, meter.spent_usd, cell_key)
        return {"cell_key": cell_key, "outcome": "over cost cap"}
    try:
        return _leased(sweep_spec, chosen, store, replaces)
    except Exception as exc:
        if not is_disk_full(exc):
            raise
        logger.error("cell %s: %r", cell_key, exc)
        return Failed(name=DISK_FULL, message=f"results disk full under {store.root}: cell {cell_key} not run (no row)")


def _leased(spec: SweepSpec, chosen: Cell, store: ResultStore, replaces: str | None) -> Any:
    logger, key = get_run_logger(), chosen.cell_key
    try:
        lease = cell_lease(store, spec.sweep_id, key, note={"flow_run": str(flow_run.get_id())}).acquire()
    except LeaseHeld as exc:  # a live earlier run of this cell: it will commit the row
        logger.warning("%s", exc)
        return {"cell_key": key, "outcome": "running elsewhere"}
    try:  # the lease is held (and beats) while the engine is awaited: the coordinator sees a live run
        if committed(store, spec.sweep_id, key, replaces):  # committed between the first look and the lease
            return {"cell_key": key, "outcome": "already committed"}
        if not engine_gate.engine_back(logger):
            return Failed(name=ENGINE_DOWN, message=f"Docker engine still not answering after "
                          f"{engine_gate.ENGINE_WAIT_S:.0f} s on this worker: cell {key} not run (no row)")
        reap_leaked()
        plan = plan_cell(spec, chosen, store)
        with sweep_gateway() as gateway:
            row = run_cell(quote(plan), chosen, quote(store), quote(gateway))
        return {**row, "outcome": "ran"}
    finally:
        lease.release()
