"""`clawmark import …`: published result tables into the store as ordinary, marked rows."""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(no_args_is_help=True)

RESULTS_HELP = "Result store: a folder or a filesystem URL (default: CLAWMARK_RESULTS)."


@app.command("ucb-results")
def ucb_results(
    results_json: Path = typer.Argument(..., help="UniClawBench's published results.json (schema clawbench.static.v2)."),
    sweep_id: str = typer.Option(..., "--as", help="Sweep id the rows are stored under."),
    runs: Path | None = typer.Option(None, "--runs", help="Its runs.json: final status, follow-ups, supervision cycles."),
    commit: str | None = typer.Option(None, "--commit", help="Commit of the source repository the files come from."),
    results: str | None = typer.Option(None, "--results", help=RESULTS_HELP),
) -> None:
    """Import UniClawBench's per-task results (16 backend × model setups) as closed-loop rows."""
    from clawmark.results.imports import import_ucb_results

    _run(lambda store: import_ucb_results(store, sweep_id, results_json, runs, commit=commit), results)


@app.command("csb-leaderboard")
def csb_leaderboard(
    leaderboard_json: Path = typer.Argument(..., help="Claw-SWE-Bench's published leaderboard JSON."),
    sweep_id: str = typer.Option(..., "--as", help="Sweep id the rows are stored under."),
    commit: str | None = typer.Option(None, "--commit", help="Commit of the source repository the file comes from."),
    results: str | None = typer.Option(None, "--results", help=RESULTS_HELP),
) -> None:
    """Import Claw-SWE-Bench's leaderboard (resolved counts and cost per setup) as patch-track rows."""
    from clawmark.results.imports import import_csb_leaderboard

    _run(lambda store: import_csb_leaderboard(store, sweep_id, leaderboard_json, commit=commit), results)


def _run(do_import, results: str | None) -> None:
    from clawmark.cli.sweep import _store
    from clawmark.results import ConfigMismatch
    from clawmark.results.imports import ImportInvalid

    store = _store(results)
    try:
        summary = do_import(store)
    except ImportInvalid as exc:
        typer.echo(f"import refused: {exc}", err=True)
        raise typer.Exit(2) from None
    except ConfigMismatch as exc:
        typer.echo(f"import refused: the sweep already holds another import ({exc})", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"imported {summary.rows} rows ({summary.setups} setups) into sweep {summary.sweep_id} "
               f"at {store.location}; source {summary.source}")
