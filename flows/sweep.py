"""The sweep flow: plan the cells, skip the committed ones, run the rest as slots free, summarise.

Its cells run in this process: each is an `attempt` task (flows/sweep_tasks.py) submitted by the core
scheduler (clawmark/sweeps/scheduler.py), after a look at the Docker engine (engine_gate)."""

from __future__ import annotations

from concurrent import futures
from typing import Any

from prefect import flow, get_run_logger
from prefect.futures import PrefectFuture
from prefect.utilities.annotations import quote

from blocks.use import use_blocks
from clawmark.results import ResultStore
from clawmark.results.errors import is_disk_full
from clawmark.sweeps import Cell, SweepPlan, SweepSpec, load_spec
from clawmark.sweeps.engine_gate import engine_back
from clawmark.sweeps.shared_gateway import sweep_gateway
from clawmark.sweeps.scheduler import DISK_FULL, ENGINE_DOWN, Committed, Ended, NoRow, Schedule, Stop, \
    SweepStopping, schedule
from flows.coordinate import coordinate, headline, results_store
from flows.slot_lease import HANDOVER_S, release_parked
from flows.sweep_tasks import run_cell

POLL_S = 0.2


class LocalRun:
    """A cell's `attempt` task in this process."""

    def __init__(self, cell: Cell, future: PrefectFuture) -> None:
        self.cell, self.future = cell, future

    def ended(self) -> Ended | None:
        # The thread's own future, not the API state: a task that dies before its run is
        # recorded would otherwise leave the API state pending and the sweep waiting forever.
        if not self.future.wrapped_future.done():
            return None
        outcome = self.future.result(raise_on_failure=False)
        if not isinstance(outcome, BaseException):
            return Committed(outcome["cost_usd"])
        if is_disk_full(outcome):  # every next cell would fail alike: let the running ones end, stop
            return Stop(DISK_FULL, f"crashed after retries: {outcome!r}")
        return NoRow(f"crashed after retries: {outcome!r}")  # no row: the next run of the sweep redoes it


def run_cells(plan: SweepPlan, cells: list[Cell], store: ResultStore) -> Schedule:
    """Keep `max_parallel` cells running in this process, under the sweep's cost cap. Across
    workers, the Docker and model slots (global concurrency limits) bound the rest."""
    logger = get_run_logger()
    with sweep_gateway() as gateway:
        def submit(cell: Cell) -> LocalRun:
            if not engine_back(logger):  # else every next cell would become an infra row at once
                raise SweepStopping(ENGINE_DOWN, "the Docker engine stayed down")
            # quote(): Prefect must not walk the plan (every task package, every cell) per submit
            return LocalRun(cell, run_cell.submit(quote(plan), cell, quote(store), quote(gateway), HANDOVER_S))

        def first_ended(runs: list[LocalRun], timeout_s: float) -> None:
            futures.wait([run.future.wrapped_future for run in runs], timeout=timeout_s,
                         return_when=futures.FIRST_COMPLETED)

        try:
            return schedule(plan.spec, store, cells, submit, logger, poll_s=POLL_S, wait=first_ended)
        finally:
            release_parked()  # the last cells' slots, kept for a next cell that will not come


@flow(name="sweep", log_prints=True)
def sweep(spec_file: str | None = None, spec: dict[str, Any] | None = None,
          results_dir: str | None = None, force: bool = False, result_store_block: str | None = None,
          docker_host_block: str | None = None, model_endpoint_blocks: list[str] | None = None,
          retry_errors: int = 0) -> dict[str, Any]:
    """Run every cell of a sweep that has no committed row yet (all of them with `force`), and
    the error rows with fewer than `retry_errors` retries behind them (clawmark/sweeps/retry.py;
    `clawmark sweep` passes 3, this flow's deployments leave error rows to `rerun-failed`). Named
    blocks (blocks/use.py) set the result store, the Docker host and the provider keys."""
    results_dir = use_blocks(result_store_block, docker_host_block, model_endpoint_blocks) or results_dir
    sweep_spec = load_spec(spec_file) if spec_file else SweepSpec.model_validate(spec or {})
    store = results_store(results_dir)
    done = coordinate(sweep_spec, store, lambda plan, cells: run_cells(plan, cells, store),
                      force=force, retry_errors=retry_errors)
    return {"sweep_id": sweep_spec.sweep_id, "cells": len(done.plan.cells), "skipped": len(done.plan.done),
            "ran": done.schedule.ran, "retried": len(done.plan.retry), "summary": headline(store, sweep_spec.sweep_id)}
