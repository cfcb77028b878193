"""`clawmark sweep SPEC.yaml` runs a sweep with live progress (here, or with `--pool NAME` on the
workers of a Prefect work pool), retrying its error rows within a bound; `clawmark sweep
rerun-failed ID` reruns the failed cells as the deployment does; `clawmark sweep status ID` reads
the store."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from clawmark.cli.groups import default_command_group

app = typer.Typer(cls=default_command_group("run"), no_args_is_help=True)
# A loaded machine can take longer than Prefect's default 20 s to start its temporary server, and
# the server's telemetry heartbeat races the flow for its SQLite file ("database is locked"
# tracebacks on the screen, from the server process, whose output is not ours to route).
QUIET_PREFECT = {"PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120", "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
                 "DO_NOT_TRACK": "1"}


@app.command("run", hidden=True)
def sweep_run(
    spec_file: Path = typer.Argument(..., exists=True, dir_okay=False, help="Sweep file (tasks_catalog/sweeps/*.yaml)."),
    results: str | None = typer.Option(None, "--results", help="Result store: a folder or a filesystem URL "
                                       "(s3://…, any fsspec URL; default: CLAWMARK_RESULTS)."),
    force: bool = typer.Option(False, "--force", help="Run every cell again, committed or not."),
    retry_errors: int | None = typer.Option(None, "--retry-errors", min=0, help="Run a cell whose row is an error "
                                            "(infra, rate limit, harness) again, up to this many times across runs of "
                                            "the sweep (default 3: clawmark/sweeps/retry.py says why); measured "
                                            "failures are never rerun. 0 keeps error rows."),
    pool: str | None = typer.Option(None, "--pool", help="Fan the cells out to this Prefect work pool's workers "
                                    "(needs PREFECT_API_URL); default: run them in this process."),
    fork: str | None = typer.Option(None, "--fork", help="Run the spec under this new sweep id (a changed protocol)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show Prefect's log lines and tracebacks too."),
    no_pull: bool = typer.Option(False, "--no-pull", help="Offline machine: never pull a row's image; a missing "
                                 "one stays image_missing (CLAWMARK_NO_PULL=1 does the same for pool workers)."),
    again: str | None = typer.Option(None, "--again", hidden=True, help="The command that runs this sweep again "
                                     "(said in the summary; `clawmark demo` passes its own)."),
) -> None:
    """Run every cell of SPEC_FILE that has no committed row yet, and retry its error rows, showing progress."""
    if no_pull:
        os.environ["CLAWMARK_NO_PULL"] = "1"  # read where each instance image is resolved
    from clawmark.cli.console import console
    from clawmark.cli.sweep_view import summary_table
    from clawmark.sweeps.retry import DEFAULT_RETRY_ERRORS

    retry_errors = DEFAULT_RETRY_ERRORS if retry_errors is None else retry_errors
    _check_pool(pool)
    spec, store = _load(spec_file, results, fork)
    plan = _plan(spec, store, force, retry_errors)
    again = again or _again_command(spec_file, store, fork)
    out = console()
    _say_unrunnable(spec, plan, out)
    if not plan.pending:  # nothing to run: answer from the store, without starting Prefect at all
        out.print(summary_table(_summary(spec.sweep_id, store, plan), store.location))
        _print_left(spec, store, plan, retry_errors, again, spec_file)
        return
    run = _pool_run if pool else _local_run
    result = _live(lambda: run(spec, store, force, retry_errors, pool), store, spec, plan.cells, plan.done, verbose)
    out.print(summary_table(result, store.location))
    _print_left(spec, store, plan, retry_errors, again, spec_file)


@app.command("rerun-failed")
def sweep_rerun_failed(
    sweep_id: str = typer.Argument(..., help="Sweep id in the result store (e.g. demo, nightly-20261130)."),
    spec_file: Path | None = typer.Option(None, "--spec", exists=True, dir_okay=False, help="The sweep file "
                                          "(default: tasks_catalog/sweeps/SWEEP_ID.yaml, nightly.yaml for nightly-*)."),
    statuses: list[str] | None = typer.Option(None, "--statuses", help="Rerun the cells whose row has these "
                                              "statuses (repeat or comma-separate; `missing`: planned cells with no "
                                              "row); default: every error row (infra, rate limit, harness)."),
    results: str | None = typer.Option(None, "--results", help="Result store (default: CLAWMARK_RESULTS)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show Prefect's log lines and tracebacks too."),
) -> None:
    """Run again the cells of a sweep whose row failed for a reason worth another try — what the
    rerun-failed deployment does, here, with no Prefect server."""
    from clawmark.cli.console import console
    from clawmark.cli.sweep_view import summary_table
    from clawmark.sweeps import load_spec
    from clawmark.sweeps.plan import failed_cells
    from clawmark.sweeps.retry import DEFAULT_RETRY_ERRORS

    chosen_statuses = [s.strip() for entry in statuses or [] for s in entry.split(",") if s.strip()] or None
    spec_file = spec_file or _spec_of(sweep_id)
    spec, store = _load(spec_file, results, sweep_id)
    if sweep_id not in store.sweeps():  # a mistyped id must not pin a new, empty sweep
        typer.echo(f"{store.location}: sweep {sweep_id!r} has no rows to rerun "
                   f"(sweeps here: {', '.join(store.sweeps()) or 'none'})", err=True)
        raise typer.Exit(1)
    plan = _plan(spec, store, False, 0)
    try:
        chosen = failed_cells(plan, store, chosen_statuses)
    except ValueError as exc:  # an unknown status
        typer.echo(f"--statuses: {exc}", err=True)
        raise typer.Exit(2) from None
    out = console()
    if not chosen:
        out.print(f"sweep {sweep_id}: no cell to rerun ({', '.join(chosen_statuses or ['error rows'])})")
        return
    keys = {c.cell_key for c in chosen}
    result = _live(lambda: _rerun_flow(spec, store, spec_file, chosen_statuses), store, spec, chosen, set(), verbose)
    out.print(summary_table({**result, "ran": result["rerun"], "skipped": len(plan.cells) - len(keys)}, store.location))
    fork = None if load_spec(spec_file).sweep_id == sweep_id else sweep_id  # a night of the nightly, say
    _print_left(spec, store, plan, DEFAULT_RETRY_ERRORS, _again_command(spec_file, store, fork), spec_file)


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


def _plan(spec, store, force: bool, retry_errors: int):
    from clawmark.results.errors import ConfigMismatch
    from clawmark.sweeps import plan_sweep
    from clawmark.sweeps.plan import pin_protocol

    from clawmark.gateway.provider_preflight import MissingProviderKey, require_keys

    try:
        require_keys([*spec.models, *_judge_models(spec)])
        pin_protocol(spec, store)
        return plan_sweep(spec, store, force=force, retry_errors=retry_errors)
    except (ConfigMismatch, MissingProviderKey, ValueError, LookupError) as exc:  # no key or price, unknown claw or task, changed protocol
        typer.echo(f"sweep {spec.sweep_id}: {exc}", err=True)
        raise typer.Exit(2) from None


def _say_unrunnable(spec, plan, out) -> None:
    """Before any cell starts: the tasks whose cells will be refused (missing content, credentials
    missing or placeholders); their rows are `task_unrunnable`, counted by no denominator."""
    from clawmark.catalog.errors import CatalogError
    from clawmark.sweeps.cell_preflight import unrunnable_tasks

    if spec.closed_loop is None or not plan.tasks:
        return
    try:
        refused = unrunnable_tasks(plan.tasks.values(), spec.closed_loop.attempt)
    except CatalogError as exc:  # an unreadable env_file
        typer.echo(f"sweep {spec.sweep_id}: closed_loop.attempt.env_file: {exc}", err=True)
        raise typer.Exit(2) from None
    for task_id, why in sorted(refused.items()):
        out.print(f"not runnable (refused before provisioning): {task_id}: {why}",
                  highlight=False, markup=False, soft_wrap=True)


def _judge_models(spec) -> list[str]:
    """The closed-loop roles' models a sweep names (a provider supervisor beside a scripted executor needs its key too)."""
    attempt = spec.closed_loop.attempt if spec.closed_loop else None
    return [m for m in (attempt.supervisor_model, attempt.simulator_model, attempt.image_model) if m] if attempt else []


def _summary(sweep_id: str, store, plan) -> dict:
    from analysis.pareto import cost_accuracy

    frame = store.read(sweep_id)
    return {"sweep_id": sweep_id, "ran": 0, "skipped": len(plan.done),
            "summary": cost_accuracy(frame).to_dict("records") if len(frame) else []}


def _live(target, store, spec, cells, done: set[str], verbose: bool) -> dict:
    """`target` run under the live view of `cells` (those not in `done` are run: forced or
    retried ones replace their row); a failed run is one line and exit 1."""
    from clawmark.cli.sweep_live import run_live
    from clawmark.sweeps.progress import SweepWatcher

    for name, value in QUIET_PREFECT.items():
        os.environ.setdefault(name, value)
    if not verbose:  # what Prefect logs outside the run (its temporary server stopping at exit)
        os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")

    planned = {c.cell_key for c in cells}
    watcher = SweepWatcher(store, spec.sweep_id, planned, rerun=planned - done)
    watcher.prime()
    try:
        return run_live(target, watcher, spec, store, verbose=verbose)
    except Exception as exc:  # noqa: BLE001 - the flow's failure, said in one line (the log file has it all)
        typer.echo(f"sweep {spec.sweep_id}: {type(exc).__name__}: {exc}", err=True)
        raise typer.Exit(1) from None


def _local_run(spec, store, force: bool, retry_errors: int, pool: str | None) -> dict:
    from flows.sweep import sweep  # the CLI is the top floor: it may start flows

    return sweep(spec=spec.model_dump(mode="json"), results_dir=store.location, force=force, retry_errors=retry_errors)


def _pool_run(spec, store, force: bool, retry_errors: int, pool: str | None) -> dict:
    from flows.pool import sweep_pool

    return sweep_pool(spec=spec.model_dump(mode="json"), pool=pool, results_dir=store.location, force=force,
                      retry_errors=retry_errors)


def _rerun_flow(spec, store, spec_file: Path, statuses: list[str] | None) -> dict:
    from flows.rerun_failed import rerun_failed

    return rerun_failed(sweep_id=spec.sweep_id, statuses=statuses, spec_file=str(spec_file), results_dir=store.location)


def _spec_of(sweep_id: str) -> Path:
    from clawmark.settings import TASKS_CATALOG

    sweeps = TASKS_CATALOG / "sweeps"
    for candidate in (sweeps / f"{sweep_id}.yaml", sweeps / "nightly.yaml" if sweep_id.startswith("nightly-") else None):
        if candidate is not None and candidate.is_file():
            return candidate
    typer.echo(f"sweep {sweep_id}: no {sweeps / (sweep_id + '.yaml')}; give its sweep file with --spec", err=True)
    raise typer.Exit(2)


def _again_command(spec_file: Path, store, fork: str | None) -> str:
    return f"clawmark sweep {spec_file} --results {store.location}" + (f" --fork {fork}" if fork else "")


def _print_left(spec, store, plan, retry_errors: int, again: str, spec_file: Path) -> None:
    from clawmark.cli.console import console
    from clawmark.cli.sweep_view import left_lines
    from clawmark.sweeps.retry import what_is_left

    left = what_is_left(store, spec.sweep_id, {c.cell_key for c in plan.cells}, retry_errors)
    rerun = f"clawmark sweep rerun-failed {spec.sweep_id} --spec {spec_file} --results {store.location}"
    for line in left_lines(left, again, rerun, retry_errors):
        console().print(line, highlight=False, markup=False, emoji=False, soft_wrap=True)


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
    from clawmark.sweeps import plan_sweep
    from clawmark.sweeps.progress import SweepWatcher

    if spec_file:
        spec, store = _load(spec_file, results, None)
        planned = {c.cell_key for c in plan_sweep(spec, store).cells}
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
