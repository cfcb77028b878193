"""A sweep on a Prefect work pool: one `cell` deployment run per pending cell, served by workers
on any number of machines (`prefect worker start --pool NAME`), results in one shared store.

The coordinator (this flow, started by `clawmark sweep SPEC --pool NAME`) holds the sweep's lease,
keeps up to `max_parallel` cell runs in flight, and counts a cell done only when its row is
committed in the store. A run that ended without a row, or whose worker died under it (its
cell lease in the store went stale, or never appeared), is marked crashed and submitted again,
at most `max_resubmits` times. The cost cap is checked against committed spend in the store,
here before each submission and again by each cell run before it starts.

With `force`, each cell run is sent the attempt id of the row it replaces: only a row with
another id counts as done, so a resubmitted cell still runs once. A cell run that ends with a
full results disk or with its engine down (flows/cell.py) stops the sweep as the local one
stops: nothing more is submitted, the runs in flight end, and the flow raises `ResultsDiskFull`
or `EngineStayedDown`; the cells not started have no row, so the next run of the sweep does them.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
from prefect.deployments import run_deployment
from prefect.exceptions import ObjectNotFound
from prefect.states import Crashed

from clawmark.results import ResultStore
from clawmark.results.errors import ResultsDiskFull
from clawmark.results.lease import SweepLease, cell_lease, is_live
from clawmark.runtime.engine import EngineStayedDown
from clawmark.sweeps import Cell, SweepSpec, plan_sweep
from clawmark.sweeps.plan import pin_protocol
from clawmark.sweeps.progress import SweepWatcher
from flows import sweep as local_sweep
from flows.cell import DISK_FULL, ENGINE_DOWN, cell as cell_flow
from flows.limits import ensure_limits
from flows.stages import compact
from flows.sweep import headline, results_store

PROJECT = Path(__file__).resolve().parents[1]
POLL_S = 2.0
FINAL = {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}


class PoolMissing(LookupError):
    """The named work pool does not exist on the server."""


def cell_deployment(pool: str) -> str:
    """Create (or update) the `cell/<pool>` deployment from this checkout, as `prefect deploy`
    would: process workers start its runs in the same path on their machine."""
    with get_client(sync_client=True) as client:
        try:
            client.read_work_pool(pool)
        except ObjectNotFound:
            raise PoolMissing(f"work pool {pool!r} not found on the server: create it with "
                              f"`prefect work-pool create {pool} --type process`") from None
        client.create_deployment(
            flow_id=client.create_flow_from_name("cell"), name=pool, work_pool_name=pool,
            entrypoint="flows/cell.py:cell", path=str(PROJECT),
            pull_steps=[{"prefect.deployments.steps.set_working_directory": {"directory": str(PROJECT)}}],
            parameter_openapi_schema=cell_flow.parameters.model_dump(),
            description="One cell of a sweep (started by `clawmark sweep --pool`).")
    return f"cell/{pool}"


@dataclass
class InFlight:
    cell: Cell
    run_id: Any
    tries: int


class Coordinator:
    """Submit, watch and resubmit the cell runs of one sweep."""

    def __init__(self, spec: SweepSpec, store: ResultStore, deployment: str, parameters: dict[str, Any],
                 max_resubmits: int, claim_grace_s: float, replaces: dict[str, str] | None = None):
        self.spec, self.store, self.deployment, self.parameters = spec, store, deployment, parameters
        self.max_resubmits, self.claim_grace_s = max_resubmits, claim_grace_s
        self.replaces = replaces or {}  # forced cells: the attempt id of the row each run replaces
        self.committed = SweepWatcher(store, spec.sweep_id)  # every row of the sweep: spend and done keys
        self.committed.prime()
        self.logger = get_run_logger()
        self.resubmitted = self.given_up = 0
        self.rerun_spent_usd = 0.0  # forced cells' new rows (the watcher had their keys already)
        self.stopped: str | None = None  # the state name of a cell run that stops the sweep

    @property
    def over_cap(self) -> bool:
        cap = self.spec.max_cost_usd
        return cap is not None and self.committed.counts.spent_usd + self.rerun_spent_usd >= cap

    def submit(self, cell: Cell, tries: int) -> InFlight:
        coordinates = {"track": cell.track, "instance_id": cell.instance_id, "claw": cell.claw, "model": cell.model,
                       "seed": cell.seed}
        parameters = {**self.parameters, "cell_key": cell.cell_key, "coordinates": coordinates,
                      "replaces": self.replaces.get(cell.cell_key)}
        run = run_deployment(self.deployment, parameters=parameters, timeout=0,
                             flow_run_name=f"{self.spec.sweep_id}/{cell.claw}/{cell.instance_id}/{cell.seed}",
                             tags=[f"sweep:{self.spec.sweep_id}"], as_subflow=True)
        return InFlight(cell, run.id, tries)

    def run(self, cells: list[Cell]) -> int:
        queue, flying, ran = list(cells), [], 0
        while queue or flying:
            self.committed.poll()
            if self.stopped and queue:
                self.logger.error("sweep %s: a cell run ended %s; %d cells not submitted", self.spec.sweep_id,
                                  self.stopped, len(queue))
                queue.clear()
            while queue and len(flying) < self.spec.max_parallel and not self.over_cap:
                flying.append(self.submit(queue.pop(0), 0))
            if self.over_cap and queue:
                self.logger.warning("sweep %s: cost cap %.4f USD reached (%.4f committed); %d cells not submitted",
                                    self.spec.sweep_id, self.spec.max_cost_usd, self.committed.counts.spent_usd, len(queue))
                queue.clear()
            still, ran = self._check(flying, ran)
            flying = still
            time.sleep(POLL_S)
        return ran

    def _check(self, flying: list[InFlight], ran: int) -> tuple[list[InFlight], int]:
        runs = self._runs([f.run_id for f in flying])
        still = []
        for item in flying:
            if self._done(item.cell.cell_key):
                ran += 1
                continue
            run = runs.get(item.run_id)
            if run is not None and run.state_type.value == "FAILED" and run.state_name in (DISK_FULL, ENGINE_DOWN):
                self.stopped = self.stopped or run.state_name
                self.logger.error("cell %s: %s", item.cell.cell_key, run.state.message if run.state else run.state_name)
                continue
            if run is None or not self._lost(item, run):
                still.append(item)
                continue
            if item.tries >= self.max_resubmits or self.over_cap or self.stopped:
                self.given_up += 1
                self.logger.error("cell %s: no row after %d runs; the next run of the sweep redoes it",
                                  item.cell.cell_key, item.tries + 1)
                continue
            self.resubmitted += 1
            self.logger.warning("cell %s: run %s ended %s without a row; submitting it again", item.cell.cell_key,
                                item.run_id, run.state_type.value)
            still.append(self.submit(item.cell, item.tries + 1))
        return still, ran

    def _done(self, key: str) -> bool:
        """The cell has its row: for a forced cell, a row other than the one it replaces."""
        if key not in self.replaces:
            return key in self.committed.seen or self.store.has(self.spec.sweep_id, key)
        if not self.store.has(self.spec.sweep_id, key):
            return False
        row = self.store.read_row(self.spec.sweep_id, key)
        if row.attempt_id == self.replaces[key]:
            return False
        del self.replaces[key]  # counted once
        self.rerun_spent_usd += row.cost_usd if math.isfinite(row.cost_usd) else 0.0
        return True

    def stop_if_asked(self, not_run: int) -> None:
        """Raise what the local sweep raises when a cell run ended the sweep."""
        if self.stopped == DISK_FULL:
            raise ResultsDiskFull(self.store.root, not_run)
        if self.stopped == ENGINE_DOWN:
            raise EngineStayedDown(local_sweep.ENGINE_WAIT_S, not_run)

    def _runs(self, ids: list[Any]) -> dict[Any, Any]:
        if not ids:
            return {}
        with get_client(sync_client=True) as client:
            found = client.read_flow_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=ids)), limit=len(ids))
        return {run.id: run for run in found}

    def _lost(self, item: InFlight, run: Any) -> bool:
        """Ended without a row, or running under a worker that is gone (marked crashed here): its
        own cell lease went stale, or it never took one within `claim_grace_s`. A live lease of
        any run of the cell means the cell is being worked on: wait."""
        lease = cell_lease(self.store, self.spec.sweep_id, item.cell.cell_key).holder()
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


def replaced_rows(store: ResultStore, sweep_id: str, cells: list[Cell]) -> dict[str, str]:
    """cell key -> attempt id of the committed row of each cell about to run again (forced)."""
    frame = store.read(sweep_id, columns=["cell_key", "attempt_id"])
    if frame.empty:
        return {}
    pending = {c.cell_key for c in cells}
    return {k: a for k, a in zip(frame["cell_key"], frame["attempt_id"]) if k in pending}


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
    pin_protocol(sweep_spec, store)
    ensure_limits(sweep_spec.models, sweep_spec.max_parallel)
    with SweepLease(store, sweep_spec.sweep_id):
        plan = plan_sweep(sweep_spec, store, force=force, retry_errors=retry_errors)
        get_run_logger().info("sweep %s on pool %s: %d cells, %d already committed, %d to run", sweep_spec.sweep_id,
                              pool, len(plan.cells), len(plan.done), len(plan.pending))
        parameters = {"spec": spec, "results": store.location, "result_store_block": result_store_block,
                      "docker_host_block": docker_host_block, "model_endpoint_blocks": model_endpoint_blocks}
        coordinator = Coordinator(sweep_spec, store, deployment, parameters, max_resubmits, claim_grace_s,
                                  replaced_rows(store, sweep_spec.sweep_id, plan.pending))
        ran = coordinator.run(plan.pending)
        coordinator.stop_if_asked(len(plan.pending) - ran)  # before compaction: it writes to that disk
        compact(store, sweep_spec.sweep_id)
    return {"sweep_id": sweep_spec.sweep_id, "cells": len(plan.cells), "skipped": len(plan.done), "ran": ran,
            "retried": len(plan.retry), "resubmitted": coordinator.resubmitted, "given_up": coordinator.given_up,
            "summary": headline(store, sweep_spec.sweep_id)}
