"""`clawmark swe evaluate`: evaluate predictions in fresh instance containers."""

from __future__ import annotations

from pathlib import Path

import typer

EXIT_BAD_INPUT = 2
EXIT_NO_ENGINE = 3


def evaluate(
    instances: Path = typer.Option(..., "--instances", help="SWE-bench rows: JSONL, JSON list or Parquet."),
    predictions: Path = typer.Option(..., "--predictions", help="JSONL of {instance_id, model_name_or_path, model_patch}."),
    run_id: str = typer.Option("", "--run-id", help="Name of this run (default: a UTC timestamp)."),
    out: Path | None = typer.Option(None, "--out", help="Output root (default: $CLAWMARK_HOME/swe-eval)."),
    timeout: float = typer.Option(1800.0, "--timeout", min=1, help="Eval-script deadline per instance, seconds."),
    workers: int = typer.Option(1, "--workers", min=1, max=32, help="Instances evaluated at once."),
    network: str = typer.Option("default", "--network", help="default: Docker's bridge, as swebench "
                                "(eval scripts reinstall packages); none: hermetic."),
) -> None:
    """Apply each prediction in a fresh container, run its tests, grade, write report.json and a
    run summary. Exit 0 when the run completed (even with unresolved instances); non-zero only
    when the inputs are unusable or no Docker engine answers."""
    from clawmark.catalog import CatalogError, load_instances
    from clawmark.swe.predictions import read_predictions

    try:
        rows = load_instances(instances)
    except CatalogError as exc:
        _fail(str(exc))
    read = read_predictions(predictions)
    for problem in read.problems:
        typer.secho(f"skipped: {problem}", err=True, fg="yellow")
    if not read.by_id:
        _fail(f"{predictions}: no usable prediction lines")
    if network not in ("default", "none"):
        _fail(f"--network: expected 'default' or 'none', got {network!r}")
    _require_engine()
    result = _run(rows, read.by_id, run_id, out, timeout, workers, network)
    _print_summary(result)


def _run(rows, by_id, run_id: str, out: Path | None, timeout: float, workers: int, network: str):
    from datetime import datetime, timezone

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from clawmark.settings import settings
    from clawmark.swe.evaluate import EvalConfig
    from clawmark.swe.evaluation_run import evaluate_run
    from clawmark.swe.summary_status import summary_status

    run_id = run_id or datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = out or settings().home / "swe-eval"
    known = {row.instance_id for row in rows}
    for iid in sorted(set(by_id) - known):
        typer.secho(f"unknown instance id {iid!r}: not in {len(known)} instances, not evaluated", err=True, fg="yellow")
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=False) as progress:
        task = progress.add_task(f"evaluating run {run_id}", total=len(set(by_id) & known))

        def done(outcome) -> None:
            reason = f" [{outcome.failure_reason.value}]" if outcome.failure_reason else ""
            progress.console.print(f"{outcome.instance_id}: {summary_status(outcome).value}{reason}"
                                   + (f" ({outcome.detail})" if outcome.detail and not outcome.graded else ""))
            progress.advance(task)

        return evaluate_run(rows, by_id, run_id, out, workers, EvalConfig(timeout_s=timeout, network=network),
                            on_done=done)


def _print_summary(result) -> None:
    from clawmark.cli.console import console as make_console
    from rich.table import Table

    table = Table(title="swe evaluate")
    table.add_column("status")
    table.add_column("instances", justify="right")
    for status, count in result.summary["status_counts"].items():
        if count:
            table.add_row(status, str(count))
    if result.unknown_ids:
        table.add_row("unknown_instance", str(len(result.unknown_ids)))
    submitted = len(result.outcomes)
    table.add_row("resolved / evaluated", f"{result.summary['resolved_instances']} / {submitted}")
    console = make_console()
    console.print(table)
    console.print(f"summary: {result.summary_path}")


def _require_engine() -> None:
    from clawmark.runtime.engine import docker_client
    from clawmark.runtime.errors import EngineUnavailable

    try:
        docker_client()
    except EngineUnavailable as exc:
        typer.secho(str(exc), err=True, fg="red")
        raise typer.Exit(EXIT_NO_ENGINE) from None


def _fail(message: str) -> None:
    typer.secho(message, err=True, fg="red")
    raise typer.Exit(EXIT_BAD_INPUT)
