"""`clawmark demo`: the demo sweep over both tracks on scripted models, then its report.

No provider key and no Prefect server needed: the claws call the scripted models through the
gateway over the same HTTP path a provider takes, and Prefect starts a temporary server only
when a cell is left to run (a finished demo answers from the store in seconds)."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from clawmark.settings import TASKS_CATALOG

DEMO_SPEC = TASKS_CATALOG / "sweeps" / "demo.yaml"
# A loaded machine can take longer than Prefect's default 20 s to start its temporary server.
QUIET_PREFECT = {"PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120", "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
                 "DO_NOT_TRACK": "1", "PREFECT_LOGGING_LEVEL": "WARNING"}


def demo(
    spec_file: Path = typer.Option(DEMO_SPEC, "--spec", exists=True, dir_okay=False, help="Another sweep file to run the same way."),
    results: Path | None = typer.Option(None, "--results", help="Result store root (default: CLAWMARK_RESULTS)."),
    out: Path | None = typer.Option(None, "--out", help="Report folder (default: <results>/reports/<sweep_id>)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show Prefect's log lines too."),
) -> None:
    """Run the demo sweep (both tracks, two scripted models, no key needed), print its leaderboard and write its report."""
    from clawmark.cli.report import report_sweep
    from clawmark.cli.sweep import sweep_run
    from clawmark.settings import settings
    from clawmark.sweeps import load_spec

    for name, value in QUIET_PREFECT.items():
        if not (verbose and name == "PREFECT_LOGGING_LEVEL"):
            os.environ.setdefault(name, value)
    root = results or settings().results_dir
    sweep_run(spec_file=spec_file, results=root, force=False, fork=None, verbose=verbose)
    report_sweep(sweep_id=load_spec(spec_file).sweep_id, out=out, results=root, spec=spec_file, n_boot=1000)
