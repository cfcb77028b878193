"""A sweep on a Prefect work pool: one `cell` deployment run per pending cell, served by workers
on any number of machines (`prefect worker start --pool NAME`), results in one shared store.

The coordinator (this flow, started by `clawmark sweep SPEC --pool NAME`) holds the sweep's lease,
keeps up to `max_parallel` cell runs in flight, and counts a cell done only when its row is
committed in the store. A run that ended without a row, or whose worker died under it (its
cell lease in the store went stale, or never appeared), is marked crashed and submitted again,
at most `max_resubmits` times. The cost cap is checked against the sweep's spend (committed rows
at start, then each new row) before each submission, and again by each cell run before it starts,
from the count the coordinator publishes in the shared store (clawmark/sweeps/spend.py). That
policy is the core scheduler's (clawmark/sweeps/scheduler.py), the local sweep's too; what this
module adds is what a submission is: a run of the `cell` deployment.

With `force`, each cell run is sent the attempt id of the row it replaces: only a row with
another id counts as done, so a resubmitted cell still runs once. A cell run that ends with a
full results disk or with its engine down (flows/cell.py) stops the sweep as the local one
stops: nothing more is submitted, the runs in flight end, and the flow raises `ResultsDiskFull`
or `EngineStayedDown`; the cells not started have no row, so the next run of the sweep does them.
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId, LogFilter, LogFilterFlowRunId, \
    LogFilterLevel
from prefect.client.schemas.sorting import LogSort
from prefect.deployments import run_deployment
from prefect.exceptions import ObjectNotFound
from prefect.states import Crashed

from clawmark.results import ResultStore
from clawmark.results.lease import cell_lease, is_live
from clawmark.runtime.shipped_code import code_digest
from clawmark.sweeps import Cell, SweepPlan, SweepSpec
from clawmark.sweeps.scheduler import DISK_FULL, ENGINE_DOWN, Committed, Ended, NoRow, Schedule, Stop, new_row, \
    replaced_rows, schedule
from flows.cell import cell as cell_flow
from flows.coordinate import coordinate, headline, results_store

PROJECT = Path(__file__).resolve().parents[1]
POLL_S = 1.0
FINAL = {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}


class PoolMissing(LookupError):
    """The named work pool does not exist on the server."""


def cell_deployment(pool: str) -> str:
    """Create (or update) the `cell/<pool>` deployment of this checkout's code. A worker runs the
    clawmark it has installed (any checkout, or the worker image), and its pull step
    (`clawmark.sweeps.worker_code.same_code`) refuses a run when that code is not this one."""
    with get_client(sync_client=True) as client:
        try:
            client.read_work_pool(pool)
        except ObjectNotFound:
            raise PoolMissing(f"work pool {pool!r} not found on the server: create it with "
                              f"`prefect work-pool create {pool} --type process`") from None
        client.create_deployment(
            flow_id=client.create_flow_from_name("cell"), name=pool, work_pool_name=pool,
            entrypoint="flows.cell:cell",
            pull_steps=[{"clawmark.sweeps.worker_code.same_code": {"digest": code_digest(PROJECT),
                                                                   "started_from": str(PROJECT)}}],
            parameter_openapi_schema=cell_flow.parameters.model_dump(),
            description="One cell of a sweep (started by `clawmark sweep --pool`).")
    return f"cell/{pool}"


class PoolRun:
    """One `cell` deployment run of a cell; ended once its row is committed, or lost."""

    def __init__(self, pool: "PoolRuns", cell: Cell, run_id: Any) -> None:
        self.pool, self.cell, self.run_id = pool, cell, run_id

    def ended(self) -> Ended | None:
        pool, key = self.pool, self.cell.cell_key
        if (row_cost := pool.committed_cost(key)) is not None:
            return Committed(row_cost)
        run = pool.states.get(self.run_id)
        if run is not None and run.state_type.value == "FAILED" and run.state_name in (DISK_FULL, ENGINE_DOWN):
            return Stop(run.state_name, run.state.message if run.state else run.state_name)
        if run is None or not pool.lost(self.cell, run):
            return None
        return NoRow(f"run {self.run_id} ended {run.state_type.value} without a row: {pool.why(run)}")


class PoolRuns:
    """Submit cell runs of one sweep to a deployment, and tell which ended: committed, lost, or
    stopping the sweep. The scheduling itself is the core's (clawmark/sweeps/scheduler.py)."""

    def __init__(self, spec: SweepSpec, store: ResultStore, deployment: str, parameters: dict[str, Any],
                 claim_grace_s: float, replaces: dict[str, str] | None = None):
        self.spec, self.store, self.deployment, self.parameters = spec, store, deployment, parameters
        self.claim_grace_s = claim_grace_s
        self.replaces = replaces or {}  # forced cells: the attempt id of the row each run replaces
        self.states: dict[Any, Any] = {}  # run id -> its flow run, read once per poll

    def submit(self, cell: Cell) -> PoolRun:
        coordinates = {"track": cell.track, "instance_id": cell.instance_id, "claw": cell.claw, "model": cell.model,
                       "seed": cell.seed}
        parameters = {**self.parameters, "cell_key": cell.cell_key, "coordinates": coordinates,
                      "replaces": self.replaces.get(cell.cell_key)}
        run = run_deployment(self.deployment, parameters=parameters, timeout=0,
                             flow_run_name=f"{self.spec.sweep_id}/{cell.claw}/{cell.instance_id}/{cell.seed}",
                             tags=[f"sweep:{self.spec.sweep_id}"], as_subflow=True)
        return PoolRun(self, cell, run.id)

    @staticmethod
    def why(run: Any) -> str:
        """What a run that left no row said last: its final state's message, and its last error log
        line, where the real cause is when its process died (e.g. a pull step refusing the worker)."""
        said = [run.state.message] if run.state and run.state.message else []
        with get_client(sync_client=True) as client:
            errors = client.read_logs(LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run.id]),
                                                level=LogFilterLevel(ge_=logging.ERROR)),
                                      limit=1, sort=LogSort.TIMESTAMP_DESC)
        said += [log.message.strip().splitlines()[-1] for log in errors if log.message.strip()]
        return " | ".join(text[:400] for text in said) or "no message"

    def refresh(self, runs: list[PoolRun]) -> None:
        ids = [run.run_id for run in runs]
        with get_client(sync_client=True) as client:
            found = client.read_flow_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=ids)), limit=len(ids))
        self.states = {run.id: run for run in found}

    def committed_cost(self, key: str) -> float | None:
        """The cost of the cell's new row once it has one; None before."""
        row = new_row(self.store, self.spec.sweep_id, key, self.replaces.get(key))
        return None if row is None else row.cost_usd

    def lost(self, cell: Cell, run: Any) -> bool:
        """Ended without a row, or running under a worker that is gone (marked crashed here): its
        own cell lease went stale, or it never took one within `claim_grace_s`. A live lease of
        any run of the cell means the cell is being worked on: wait."""
        lease = cell_lease(self.store, self.spec.sweep_id, cell.cell_key).holder()
        if lease is not None and is_live(lease, 60.0):
            return False
        state = run.state_type.value
        if state in FINAL:
            return True
        if state not in ("PENDING", "RUNNING"):
            return False  # scheduled: waiting for a worker
        own = lease is not None and lease.get("flow_run") == str(run.id)  # else an earlier, dead run's
        since = run.state.timestamp if run.state else datetime.now(timezone.utc)
        if not own and (datetime.now(timezone.utc) - since).total_seconds() < self.claim_grace_s:
            return False  # starting up: the cell lease is taken a few seconds in
        with get_client(sync_client=True) as client:
            client.set_flow_run_state(run.id, Crashed(message="its worker is gone (no live cell lease)"), force=True)
        return True


@flow(name="sweep-pool", log_prints=True)
def sweep_pool(spec: dict[str, Any], pool: str, results_dir: str | None = None, force: bool = False,
               max_resubmits: int = 2, claim_grace_s: float = 120.0, result_store_block: str | None = None,
               docker_host_block: str | None = None, model_endpoint_blocks: list[str] | None = None,
               retry_errors: int = 0) -> dict[str, Any]:
    """Run every cell of the sweep without a committed row on the work pool (every cell with
    `force`, and the error rows `retry_errors` allows, as flows/sweep.py; each once: a run skips a
    row other than the one it replaces, so resubmitting is safe)."""
    sweep_spec = SweepSpec.model_validate(spec)
    store = results_store(results_dir)
    deployment = cell_deployment(pool)  # a missing pool is refused before anything is pinned
    parameters = {"spec": spec, "results": store.location, "project_root": str(PROJECT),
                  "result_store_block": result_store_block,
                  "docker_host_block": docker_host_block, "model_endpoint_blocks": model_endpoint_blocks}

    def on_pool(plan: SweepPlan, cells: list[Cell]) -> Schedule:
        runs = PoolRuns(sweep_spec, store, deployment, parameters, claim_grace_s,
                        replaced_rows(store, sweep_spec.sweep_id, cells))
        return schedule(sweep_spec, store, cells, runs.submit, get_run_logger(), poll_s=POLL_S,
                        max_resubmits=max_resubmits, refresh=runs.refresh)

    done = coordinate(sweep_spec, store, on_pool, force=force, retry_errors=retry_errors, local=False,
                      what=f" on pool {pool}")
    return {"sweep_id": sweep_spec.sweep_id, "cells": len(done.plan.cells), "skipped": len(done.plan.done),
            "ran": done.schedule.ran, "retried": len(done.plan.retry), "resubmitted": done.schedule.resubmitted,
            "given_up": done.schedule.given_up, "summary": headline(store, sweep_spec.sweep_id)}
