"""Rerun the cells of a sweep whose committed row is an infrastructure or harness failure.

Deployed in prefect.yaml so it can be triggered from the UI after an outage."""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger

from clawmark.sweeps import load_spec, plan_sweep
from clawmark.sweeps.plan import failed_cells
from flows.sweep import _store, headline, run_cells


@flow(name="rerun-failed", log_prints=True)
def rerun_failed(spec_file: str, results_dir: str | None = None) -> dict[str, Any]:
    spec = load_spec(spec_file)
    store = _store(results_dir)
    plan = plan_sweep(spec, store)
    failed = failed_cells(plan, store)
    get_run_logger().info("sweep %s: %d failed cells to rerun", spec.sweep_id, len(failed))
    ran = run_cells(plan, failed, store)
    return {"sweep_id": spec.sweep_id, "rerun": ran, "summary": headline(store, spec.sweep_id)}
