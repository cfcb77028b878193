"""`clawmark sweep SPEC.yaml` runs a sweep with live progress (here, or with `--pool NAME` on the
workers of a Prefect work pool); `clawmark sweep status ID` reads the store."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import typer

from clawmark.cli.groups import default_command_group

app = typer.Typer(cls=default_command_group("run"), no_args_is_help=True)
POLL_S = 1.0


@app.command("run", hidden=True)
def sweep_run(
    spec_file: Path = typer.Argument(..., exists=True, dir_okay=False, help="Sweep file (tasks_catalog/sweeps/*.yaml)."),
    results: str | None = typer.Option(None, "--results", help="Result store: a folder or a filesystem URL "
                                       "(s3://…, any fsspec URL; default: CLAWMARK_RESULTS)."),
    force: bool = typer.Option(False, "--force", help="Run every cell again, committed or not."),
    pool: str | None = typer.Option(None, "--pool", help="Fan the cells out to this Prefect work pool's workers "
                                    "(needs PREFECT_API_URL); default: run them in this process."),
    fork: str | None = typer.Option(None, "--fork", help="Run the spec under this new sweep id (a changed protocol)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show Prefect's log lines too."),
    no_pull: bool = typer.Option(False, "--no-pull", help="Offline machine: never pull a row's image; a missing "
                                 "one stays image_missing (CLAWMARK_NO_PULL=1 does the same for pool workers)."),
) -> None:
    """Run every cell of SPEC_FILE that has no committed row yet, showing progress as it goes."""
    if no_pull:
        os.environ["CLAWMARK_NO_PULL"] = "1"  # read where each instance image is resolved
    from clawmark.cli.console import console
    from clawmark.cli.sweep_view import finished_line, progress_table, summary_table

    _check_pool(pool)
    spec, store = _load(spec_file, results, fork)
    plan = _plan(spec, store, force)
    out = console()
    if not plan.pending:  # nothing to run: answer from the store, without starting Prefect at all
        out.print(summary_table(_summary(spec.sweep_id, store, plan), store.location))
        return
    watcher = _watcher(store, spec.sweep_id, plan)
    if not verbose:
        os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    box: dict = {}
    thread = threading.Thread(target=_run_flow, args=(spec, store, force, pool, box), daemon=True)
    thread.start()
    if out.is_terminal:
        from rich.live import Live

        with Live(progress_table(watcher, spec), console=out, refresh_per_second=2) as live:
            while thread.is_alive():
                thread.join(POLL_S)
                watcher.poll()
                live.update(progress_table(watcher, spec))
    else:
        while thread.is_alive():
            thread.join(POLL_S)
            for cell in watcher.poll():
                out.print(finished_line(cell, watcher, spec.max_cost_usd), highlight=False)
    for cell in watcher.poll():  # rows committed between the last poll and the flow's end
        if not out.is_terminal:
            out.print(finished_line(cell, watcher, spec.max_cost_usd), highlight=False)
    if "error" in box:
        typer.echo(f"sweep {spec.sweep_id}: {type(box['error']).__name__}: {box['error']}", err=True)
        raise typer.Exit(1)
    out.print(summary_table(box["result"], store.location))


def _check_pool(pool: str | None) -> None:
    if pool is None:
        return
    if not os.environ.get("PREFECT_API_URL"):
        typer.echo(f"--pool {pool}: PREFECT_API_URL is not set; point it at the server the pool's workers poll "
                   "(export PREFECT_API_URL=http://127.0.0.1:4200/api)", err=True)
        raise typer.Exit(2)
    from flows.pool import PoolMissing, cell_deployment  # the CLI is the top floor: it may use flows

    try:
        cell_deployment(pool)  # before anything is pinned: a mistyped pool leaves no trace
    except PoolMissing as exc:
        typer.echo(f"--pool: {exc}", err=True)
        raise typer.Exit(2) from None


def _load(spec_file: Path, results: str | None, fork: str | None):
    from clawmark.catalog.errors import CatalogError
    from clawmark.sweeps import load_spec

    try:
        spec = load_spec(spec_file)
    except CatalogError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    if fork:
        spec = spec.model_copy(update={"sweep_id": fork})
    return spec, _store(results)


def _plan(spec, store, force: bool):
    from clawmark.results.errors import ConfigMismatch
    from clawmark.sweeps import plan_sweep
    from clawmark.sweeps.plan import pin_protocol

    from clawmark.gateway.preflight import MissingProviderKey, require_keys

    try:
        require_keys([*spec.models, *_judge_models(spec)])
        pin_protocol(spec, store)
        return plan_sweep(spec, store, force=force)
    except (ConfigMismatch, MissingProviderKey, ValueError, LookupError) as exc:  # no key or price, unknown claw or task, changed protocol
        typer.echo(f"sweep {spec.sweep_id}: {exc}", err=True)
        raise typer.Exit(2) from None


def _judge_models(spec) -> list[str]:
    """The closed-loop roles' models a sweep names (a provider supervisor beside a scripted executor needs its key too)."""
    attempt = spec.closed_loop.attempt if spec.closed_loop else None
    return [m for m in (attempt.supervisor_model, attempt.simulator_model, attempt.image_model) if m] if attempt else []


def _summary(sweep_id: str, store, plan) -> dict:
    from analysis.pareto import cost_accuracy

    frame = store.read(sweep_id)
    return {"sweep_id": sweep_id, "ran": 0, "skipped": len(plan.done),
            "summary": cost_accuracy(frame).to_dict("records") if len(frame) else []}


def _watcher(store, sweep_id: str, plan):
    from clawmark.sweeps.progress import SweepWatcher

    planned = {c.cell_key for c in plan.cells}
    watcher = SweepWatcher(store, sweep_id, planned, rerun=planned - plan.done)  # --force: pending rows rewritten
    watcher.prime()
    return watcher


def _run_flow(spec, store, force: bool, pool: str | None, box: dict) -> None:
    try:  # the CLI is the top floor: it may start flows
        if pool:
            from flows.pool import sweep_pool

            box["result"] = sweep_pool(spec=spec.model_dump(mode="json"), pool=pool, results_dir=store.location,
                                       force=force)
            return
        from flows.sweep import sweep

        box["result"] = sweep(spec=spec.model_dump(mode="json"), results_dir=store.location, force=force)
    except BaseException as exc:  # noqa: BLE001 - reported by the main thread
        box["error"] = exc


@app.command("status")
def sweep_status(
    sweep_id: str = typer.Argument(..., help="Sweep id in the result store."),
    results: str | None = typer.Option(None, "--results", help="Result store: a folder or a filesystem URL "
                                       "(default: CLAWMARK_RESULTS)."),
    spec_file: Path | None = typer.Option(None, "--spec", help="The sweep file, to count planned cells not yet run."),
) -> None:
    """Print a sweep's counts (done, running, errors, left, spend) from the store, running nothing."""
    from clawmark.cli.console import console
    from clawmark.cli.sweep_view import status_table
    from clawmark.sweeps.progress import SweepWatcher

    if spec_file:
        spec, store = _load(spec_file, results, None)
        planned = {c.cell_key for c in _plan_only(spec, store).cells}
    else:
        store, planned = _store(results), None
    watcher = SweepWatcher(store, sweep_id, planned)
    watcher.prime()
    if watcher.counts.done == 0 and not planned:
        typer.echo(f"{store.location}: sweep {sweep_id!r} has no rows (sweeps here: {', '.join(store.sweeps()) or 'none'})", err=True)
        raise typer.Exit(1)
    console().print(status_table(watcher, sweep_id))


def _store(results: str | None):
    from clawmark.results.location import open_store
    from clawmark.settings import settings

    try:
        return open_store(results or settings().results_dir)
    except ValueError as exc:  # an URL no filesystem serves
        typer.echo(f"--results: {exc}", err=True)
        raise typer.Exit(2) from None


def _plan_only(spec, store):
    from clawmark.sweeps import plan_sweep

    return plan_sweep(spec, store)

