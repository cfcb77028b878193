"""`clawmark demo`: the demo sweep over both tracks on scripted models, then its report.

No provider key and no Prefect server needed: the claws call the scripted models through the
gateway over the same HTTP path a provider takes, and Prefect starts a temporary server only
when a cell is left to run (a finished demo answers from the store in seconds)."""

from __future__ import annotations

from pathlib import Path

import typer

from clawmark.settings import TASKS_CATALOG

DEMO_SPEC = TASKS_CATALOG / "sweeps" / "demo.yaml"


def demo(
    spec_file: Path = typer.Option(DEMO_SPEC, "--spec", exists=True, dir_okay=False, help="Another sweep file to run the same way."),
    results: Path | None = typer.Option(None, "--results", help="Result store root (default: CLAWMARK_RESULTS)."),
    out: Path | None = typer.Option(None, "--out", help="Report folder (default: <results>/reports/<sweep_id>)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show Prefect's log lines too."),
) -> None:
    """Run the demo sweep (both tracks, two scripted models, no key needed), print its leaderboard and write its report."""
    from clawmark.cli import report, sweep
    from clawmark.settings import settings
    from clawmark.sweeps import load_spec

    root = str(results or settings().results_dir)
    again = "clawmark demo" + (f" --spec {spec_file}" if spec_file != DEMO_SPEC else "") + (f" --results {root}" if results else "")
    _invoke(sweep.app, [str(spec_file), "--results", root, "--again", again, *(["--verbose"] if verbose else [])])
    sweep_id = load_spec(spec_file).sweep_id
    folder = out or Path(root) / "reports" / sweep_id
    stamp = _rows_stamp(root, sweep_id, spec_file)
    if _stamp_file(folder).is_file() and _stamp_file(folder).read_text() == stamp:
        typer.echo(f"report: {folder / 'index.html'}")  # the same rows: the report on disk is this one
        return
    _invoke(report.app, [sweep_id, "--results", root, "--spec", str(spec_file), "--out", str(folder)])
    _stamp_file(folder).write_text(stamp)


def _stamp_file(folder: Path) -> Path:
    return folder / "rows-stamp.txt"


def _rows_stamp(root: str, sweep_id: str, spec_file: Path) -> str:
    """What the report was built from: the committed attempts, the sweep file and clawmark's version."""
    import hashlib

    import clawmark
    from clawmark.results import ResultStore

    attempts = sorted(ResultStore(root).read(sweep_id).get("attempt_id", []))
    digest = hashlib.sha256("\n".join([clawmark.__version__, spec_file.read_text(), *attempts]).encode())
    return digest.hexdigest()


def _invoke(app: typer.Typer, args: list[str]) -> None:
    """Run a sibling command as if typed, with its own defaults; its failure is the demo's."""
    code = typer.main.get_command(app).main(args, prog_name="clawmark", standalone_mode=False)
    if code:
        raise typer.Exit(code)
