"""One cell of a sweep as its own flow run: what a work pool's workers run for `clawmark sweep --pool`.

The coordinator (flows/pool.py) creates one run of this flow's deployment per pending cell; any
worker of the pool picks it up. A run does nothing when the cell already has a committed row (a
resubmission after a run whose worker died just after its commit) or when the sweep's committed
spend has reached its cap (the cap holds across workers: it is read from the shared store, not
from one process's memory). Otherwise it holds the cell's lease in the store while it runs, so
two runs of one cell never overlap and the coordinator can tell a run whose worker died.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.runtime import flow_run
from prefect.utilities.annotations import quote

from blocks.use import use_blocks
from clawmark.results.lease import LeaseHeld, cell_lease
from clawmark.results.location import open_store
from clawmark.sweeps import SweepSpec, plan_sweep
from clawmark.sweeps.gateway import sweep_gateway
from clawmark.sweeps.plan import SpendMeter
from flows.stages import run_cell


# Retried: listing races other runs removing their own containers (a container listed, then gone).
@task(name="reap-leaked", cache_policy=NO_CACHE, retries=3, retry_delay_seconds=1)
def reap_leaked() -> int:
    """Containers on this worker's engine whose owning process on this host is gone (a run
    SIGKILLed with its worker): removed before this run adds its own."""
    from clawmark.runtime.janitor import reap

    return len(reap())


@flow(name="cell", log_prints=True)
def cell(spec: dict[str, Any], cell_key: str, results: str, result_store_block: str | None = None,
         docker_host_block: str | None = None, model_endpoint_blocks: list[str] | None = None) -> dict[str, Any]:
    """Run the sweep cell `cell_key` of `spec` (a resolved sweep spec) into the store at `results`."""
    results = use_blocks(result_store_block, docker_host_block, model_endpoint_blocks) or results
    sweep_spec, store, logger = SweepSpec.model_validate(spec), open_store(results), get_run_logger()
    sweep_id = sweep_spec.sweep_id
    if store.has(sweep_id, cell_key):
        return {"cell_key": cell_key, "outcome": "already committed"}
    if (meter := SpendMeter.for_sweep(sweep_spec, store)).exhausted:
        logger.warning("sweep %s: cost cap %.4f USD reached (%.4f committed); cell %s not run",
                       sweep_id, sweep_spec.max_cost_usd, meter.spent_usd, cell_key)
        return {"cell_key": cell_key, "outcome": "over cost cap"}
    try:
        lease = cell_lease(store, sweep_id, cell_key, note={"flow_run": str(flow_run.get_id())}).acquire()
    except LeaseHeld as exc:  # a live earlier run of this cell: it will commit the row
        logger.warning("%s", exc)
        return {"cell_key": cell_key, "outcome": "running elsewhere"}
    try:
        if store.has(sweep_id, cell_key):  # committed between the first look and the lease
            return {"cell_key": cell_key, "outcome": "already committed"}
        reap_leaked()
        plan = plan_sweep(sweep_spec, store, force=True)
        chosen = next((c for c in plan.cells if c.cell_key == cell_key), None)
        if chosen is None:
            raise LookupError(f"sweep {sweep_id}: no cell {cell_key} in the spec")
        with sweep_gateway() as gateway:
            row = run_cell(quote(plan), chosen, quote(store), quote(gateway))
        return {**row, "outcome": "ran"}
    finally:
        lease.release()
