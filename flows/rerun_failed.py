"""Rerun the cells of a sweep whose committed row failed for a reason worth another try.

Deployed in prefect.yaml so it can be started from the UI after an outage. It coordinates like
the sweep flow (flows/coordinate.py): the protocol pin (a rerun under another protocol is
refused) and the sweep lease (never two coordinators of one sweep), then only the chosen cells
run; their new rows replace the old ones, which stay readable as history
(clawmark/results/history.py). `sweep_id` names a sweep the spec file does not, such as a night
of the nightly (`nightly-YYYYMMDD` from tasks_catalog/sweeps/nightly.yaml). `clawmark sweep
rerun-failed` runs this flow from the CLI."""

from __future__ import annotations

from typing import Any

from prefect import flow

from blocks.use import use_blocks
from clawmark.sweeps import load_spec
from clawmark.sweeps.plan import failed_cells
from clawmark.sweeps.spec import NIGHTLY_SPEC
from flows.coordinate import coordinate, headline, results_store
from flows.sweep import run_cells


@flow(name="rerun-failed", log_prints=True)
def rerun_failed(sweep_id: str | None = None, statuses: list[str] | None = None,
                 spec_file: str = str(NIGHTLY_SPEC), results_dir: str | None = None,
                 result_store_block: str | None = None, docker_host_block: str | None = None,
                 model_endpoint_blocks: list[str] | None = None) -> dict[str, Any]:
    """Rerun the cells of SWEEP_ID (default: the spec's own id) whose row has one of `statuses`
    (default: the rerunnable error kinds, infra and harness; measured failures are never rerun
    unless named; `missing` adds the planned cells that have no row)."""
    results_dir = use_blocks(result_store_block, docker_host_block, model_endpoint_blocks) or results_dir
    spec = load_spec(spec_file)
    if sweep_id:
        spec = spec.model_copy(update={"sweep_id": sweep_id})
    store = results_store(results_dir)
    if spec.sweep_id not in store.sweeps():  # a mistyped id must not pin a new, empty sweep
        raise LookupError(f"{store.root}: sweep {spec.sweep_id!r} has no rows to rerun "
                          f"(sweeps here: {', '.join(store.sweeps()) or 'none'})")
    done = coordinate(spec, store, lambda plan, cells: run_cells(plan, cells, store),
                      choose=lambda plan: failed_cells(plan, store, statuses),
                      what=f" (rerun of {', '.join(statuses) if statuses else 'infra and harness errors'})")
    return {"sweep_id": spec.sweep_id, "rerun": done.schedule.ran, "summary": headline(store, spec.sweep_id)}
