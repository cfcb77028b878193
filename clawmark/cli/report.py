"""`clawmark report …`: the HTML report of a sweep, Pareto fronts, and Lite subset selection."""

from __future__ import annotations

from pathlib import Path

import typer

from clawmark.cli.groups import default_command_group

app = typer.Typer(cls=default_command_group("sweep"), no_args_is_help=True)
lite_app = typer.Typer(no_args_is_help=True)


@app.command("sweep", hidden=True)
def report_sweep(
    sweep_id: str = typer.Argument(..., help="Sweep id in the result store."),
    out: Path | None = typer.Option(None, "--out", help="Report folder (default: <results>/reports/<sweep_id> for a "
                                    "store folder; for a store URL, ./reports/<sweep_id> in the current folder, "
                                    "since a report is never written to a remote store)."),
    results: str | None = typer.Option(None, "--results", help="Result store: a folder or a filesystem URL "
                                       "(s3://…, any fsspec URL; default: CLAWMARK_RESULTS)."),
    spec: Path | None = typer.Option(None, "--spec", help="The sweep file: cells it plans but lack a row are shown as missing."),
    n_boot: int = typer.Option(1000, "--n-boot", min=100, help="Bootstrap draws for intervals and ranks."),
    compare_judges: list[str] = typer.Option([], "--compare-judges", help="Another sweep judging the same attempts "
                                             "(a `clawmark rejudge` of it, or its source): the agreement section "
                                             "(default: the re-judge pair the store records)."),
) -> None:
    """Write the self-contained HTML report of SWEEP_ID, its plots (PNG, SVG) and tables (Parquet, CSV)."""
    import pandas as pd

    from analysis.report import build_report
    from clawmark.cli.sweep import _store  # the one parser of a --results store, shared with `clawmark sweep`
    from clawmark.results.pinning import pinned_config

    store = _store(results)
    frame = store.read(sweep_id)
    if frame.empty:
        typer.echo(f"{store.location}: sweep {sweep_id!r}: no rows (sweeps here: {', '.join(store.sweeps()) or 'none'})",
                   err=True)
        raise typer.Exit(1)
    expected = _expected_cells(spec, store) if spec else None
    folder = out or (Path(store.root) / "reports" if store.is_local else Path("reports")) / sweep_id
    index = build_report(frame, folder, title=f"clawmark · sweep {sweep_id}", config=pinned_config(store, sweep_id),
                         expected=expected, n_boot=n_boot, judges=_judges(store, sweep_id, compare_judges))
    effects = index.parent / "tables" / "harness_model_effects.csv"
    if effects.is_file():  # the decomposition's one sentence per effect, on a crossed grid
        for statement in pd.read_csv(effects)["statement"]:
            typer.echo(statement)
    typer.echo(f"report: {index}")  # last, as the demo and scripts read it


def _judges(store, sweep_id: str, named: list[str]):
    """Rows of the other judges of SWEEP_ID's attempts: the named sweeps, else its re-judge pair."""
    import pandas as pd

    from clawmark.attempts.rejudge import rejudges_of, source_of

    others = named or [s for s in [source_of(store, sweep_id), *rejudges_of(store, sweep_id)] if s]
    frames = {other: store.read(other) for other in others}
    if named and (empty := [other for other, frame in frames.items() if frame.empty]):
        typer.echo(f"--compare-judges: {store.location}: no rows in sweep {', '.join(empty)}", err=True)
        raise typer.Exit(1)
    found = [frame for frame in frames.values() if not frame.empty]  # a recorded pair may have been removed
    return pd.concat(found, ignore_index=True) if found else None


def _expected_cells(spec_file: Path, store):
    import pandas as pd

    from clawmark.sweeps import load_spec, plan_sweep

    plan = plan_sweep(load_spec(spec_file), store)
    return pd.DataFrame([{"sweep_id": plan.spec.sweep_id, "cell_key": c.cell_key, "claw": c.claw, "model": c.model,
                          "task_id": c.instance_id} for c in plan.cells])


@app.command("pareto")
def report_pareto(path: Path = typer.Argument(..., help="A results Parquet file or store folder, or a Claw-SWE-Bench leaderboard JSON.")) -> None:
    """Print the cost–accuracy Pareto front of a results table or of the Claw-SWE-Bench leaderboard."""
    from rich.table import Table

    from analysis.pareto import pareto_front
    from clawmark.cli.console import console

    points, cost = _points(path)
    groups = points.groupby("comparison", sort=False) if "comparison" in points else [("", points)]
    for name, group in groups:
        table = Table(title=f"Pareto front{f' · {name}' if name else ''}")
        for column in ("claw", "model", "pass@1", cost.replace("_", " ")):
            table.add_column(column, justify="right" if column != "claw" else "left")
        for row in pareto_front(group, cost=cost).itertuples(index=False):
            table.add_row(str(row.claw), str(row.model), f"{row.pass_at_1:.3f}", f"{getattr(row, cost):.4g}")
        console().print(table)


def _points(path: Path):
    from analysis.leaderboard import load_leaderboard
    from analysis.load import load_rows
    from analysis.pareto import cost_accuracy

    if path.suffix == ".json":
        return load_leaderboard(path), "total_cost"
    return cost_accuracy(load_rows(path)), "mean_cost"


@lite_app.command("select")
def lite_select(
    calibration: str = typer.Option(..., "--calibration", help="A full-set calibration sweep: its id in the store, "
                                    "or a results Parquet file or store folder."),
    results: str | None = typer.Option(None, "--results", help="Result store holding a sweep id given to --calibration."),
    size: int = typer.Option(80, "--size", min=4, help="Subset size (closed-loop: a multiple of the capability × "
                             "language strata; patch: per-language quotas follow the 2/3/3/2 quartile pattern)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random restarts (same seed, same subset)."),
    validation_seeds: int = typer.Option(1, "--validation-seeds", min=1, help="Closed-loop: also validate held out "
                                         "with the next N-1 seeds and print the medians (held-out figures swing with the seed)."),
    out: Path | None = typer.Option(None, "--out", help="Write the chosen task ids here, one per line."),
    as_json: bool = typer.Option(False, "--json", help="Closed-loop: print size, tasks, held-out τ-b and gaps as JSON."),
) -> None:
    """Pick a Lite subset that ranks and prices configurations like the full set; print its gaps.
    A closed-loop table is validated on setups the selection did not see."""
    import json

    from analysis.lite_closed_loop import calibration_rows, select_closed_loop
    from analysis.lite_select import select_from_rows

    rows = _calibration(calibration, results)
    closed = calibration_rows(rows)
    if len(closed):
        try:
            chosen = select_closed_loop(closed, size=size, seed=seed, validation_seeds=validation_seeds)
        except ValueError as exc:
            typer.echo(f"--calibration {calibration}: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(json.dumps(chosen.as_json(), indent=2) if as_json else "\n".join(chosen.summary_lines()))
    else:
        chosen = select_from_rows(rows, size=size, seed=seed)
        for line in chosen.summary_lines():
            typer.echo(line)
    if out:
        out.write_text("\n".join(chosen.task_ids) + "\n", encoding="utf-8")
        typer.echo(f"task ids: {out}", err=as_json)


def _calibration(calibration: str, results: str | None):
    """Rows of a calibration given as a path (Parquet file or store folder) or a sweep id in the store."""
    from analysis.load import load_rows

    if Path(calibration).exists():
        return load_rows(Path(calibration))
    from clawmark.cli.sweep import _store

    store = _store(results)
    frame = store.read(calibration)
    if frame.empty:
        typer.echo(f"--calibration {calibration}: no such file, and no rows for that sweep in {store.location}", err=True)
        raise typer.Exit(2)
    return frame
