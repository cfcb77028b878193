"""The sweep flow: plan the cells, skip the committed ones, run the rest as slots free, summarise."""

from __future__ import annotations

import time
from typing import Any

from prefect import flow, get_run_logger
from prefect.utilities.annotations import quote

from analysis.pareto import cost_accuracy
from blocks.use import use_blocks
from clawmark.results import ResultStore
from clawmark.results.location import open_store
from clawmark.results.errors import ResultsDiskFull, is_disk_full
from clawmark.results.lease import SweepLease
from clawmark.runtime.engine import EngineStayedDown, engine_answers, wait_for_engine
from clawmark.runtime.janitor import reap_sweep
from clawmark.settings import settings
from clawmark.sweeps import Cell, SweepPlan, SweepSpec, load_spec, plan_sweep
from clawmark.sweeps.gateway import sweep_gateway
from clawmark.sweeps.plan import SpendMeter, pin_protocol
from flows.limits import ensure_limits
from flows.stages import clear_partial, compact, run_cell

POLL_S = 0.2
ENGINE_WAIT_S = settings().engine_wait_s  # an engine restart, not an outage


def results_store(results_dir: str | None) -> ResultStore:
    """A local folder or any pyarrow / fsspec filesystem URL (clawmark.results.location)."""
    return open_store(results_dir or settings().results_dir)


def run_cells(plan: SweepPlan, cells: list[Cell], store: ResultStore) -> int:
    """Keep `max_parallel` cells running: the next starts as soon as one finishes (no waves
    waiting for their slowest cell); stop scheduling once the sweep's cost cap is spent.
    Across workers, the Docker and model slots (global concurrency limits) bound the rest."""
    logger, spec, ran = get_run_logger(), plan.spec, 0
    meter = SpendMeter.for_sweep(spec, store)
    ensure_limits(spec.models, spec.max_parallel)
    queue, running, disk_full, engine_down = list(cells), [], False, False
    with sweep_gateway() as gateway:
        while queue or running:
            while queue and len(running) < spec.max_parallel and not meter.exhausted:
                if not _engine_back(logger):  # else every next cell would become an infra row at once
                    engine_down = True
                    queue.clear()
                    break
                cell = queue.pop(0)
                # quote(): Prefect must not walk the plan (every task package, every cell) per submit
                running.append((cell, run_cell.submit(quote(plan), cell, quote(store), quote(gateway))))
            if meter.exhausted and queue:
                logger.warning("sweep cost cap %.4f USD reached (%.4f spent); %d cells left unscheduled",
                               spec.max_cost_usd, meter.spent_usd, len(queue))
                queue.clear()
            # The thread's own future, not the API state: a task that dies before its run is
            # recorded would otherwise leave the API state pending and this loop waiting forever.
            finished = [(c, f) for c, f in running if f.wrapped_future.done()]
            if not finished:
                time.sleep(POLL_S)
                continue
            for cell, future in finished:
                running.remove((cell, future))
                outcome = future.result(raise_on_failure=False)
                if isinstance(outcome, BaseException):  # no row: the next run of the sweep redoes it
                    logger.error("cell %s crashed after retries: %r", cell.cell_key, outcome)
                    if is_disk_full(outcome):  # every next cell would fail alike: let the running ones end, stop
                        disk_full = True
                        queue.clear()
                    continue
                meter.add(outcome["cost_usd"])
                ran += 1
    if disk_full:
        raise ResultsDiskFull(store.root, len(cells) - ran)
    if engine_down:
        raise EngineStayedDown(ENGINE_WAIT_S, len(cells) - ran)
    compact(store, spec.sweep_id)
    return ran


def _engine_back(logger: Any) -> bool:
    if engine_answers():
        return True
    logger.warning("Docker engine not answering: no new cell starts until it is back (waiting up to %.0f s)",
                   ENGINE_WAIT_S)
    back = wait_for_engine(ENGINE_WAIT_S)
    logger.warning("Docker engine is back: scheduling again" if back else "Docker engine stayed down: stopping")
    return back


def headline(store: ResultStore, sweep_id: str) -> list[dict[str, Any]]:
    """pass@1 with its bootstrap CI and cost per claw × model (errors counted, not failed)."""
    frame = store.read(sweep_id)
    return [] if frame.empty else cost_accuracy(frame).to_dict("records")


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
    pin_protocol(sweep_spec, store)
    with SweepLease(store, sweep_spec.sweep_id):  # a second run of this sweep is refused, not raced
        plan = plan_sweep(sweep_spec, store, force=force, retry_errors=retry_errors)
        reap_sweep(sweep_spec.sweep_id)  # containers a killed earlier run of this sweep left behind
        clear_partial(store, sweep_spec.sweep_id)
        get_run_logger().info("sweep %s: %d cells, %d already committed, %d to run (%d error rows retried)",
                              sweep_spec.sweep_id, len(plan.cells), len(plan.done), len(plan.pending), len(plan.retry))
        ran = run_cells(plan, plan.pending, store)
    return {"sweep_id": sweep_spec.sweep_id, "cells": len(plan.cells), "skipped": len(plan.done),
            "ran": ran, "retried": len(plan.retry), "summary": headline(store, sweep_spec.sweep_id)}
