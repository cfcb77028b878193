"""clawmark: benchmark agent harnesses ("claws") crossed with models under one fixed protocol.

Each command module exposes a Typer `app`; heavy libraries (docker, litellm, prefect) are
imported inside commands so `--help` stays fast.
"""

from __future__ import annotations

import typer

from clawmark.cli import audit, catalog, claws, demo, doctor, gateway, images, imports, rejudge, report, run, server, show, swe, sweep

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Benchmark agent harnesses (claws) × models on closed-loop and patch tasks, with cost as an axis.")
app.add_typer(images.app, name="images", help="Build, list and prune clawmark's Docker images.")
app.add_typer(catalog.app, name="catalog", help="Validate and list tasks, instances and suites.")
app.add_typer(claws.app, name="claws", help="The claws clawmark can run: versions, images, tracks, usage reports.")
app.add_typer(gateway.app, name="gateway", help="The model gateway every model call goes through.")
app.add_typer(swe.app, name="swe", help="Patch tasks: evaluate predictions, grade saved logs.")
app.add_typer(sweep.app, name="sweep", help="Run a sweep (claws × models × tasks × seeds) with live progress; show its status.")
app.add_typer(server.app, name="server", help="A local Prefect server (SQLite or PostgreSQL) for deployments, workers and the UI.")
app.add_typer(report.app, name="report", help="The HTML report of a sweep; Pareto fronts of results or a leaderboard.")
app.add_typer(imports.app, name="import", help="Import published result tables (UniClawBench, Claw-SWE-Bench) as marked rows.")
app.add_typer(report.lite_app, name="lite", help="Pick a Lite task subset that ranks like the full set.")
app.command("demo")(demo.demo)
app.command("doctor")(doctor.doctor)
app.command("audit")(audit.audit)
app.command("run")(run.run)
app.command("rejudge")(rejudge.rejudge)
app.command("show")(show.show)


@app.command("version")
def version() -> None:
    """Print clawmark's version and protocol version."""
    from clawmark import PROTOCOL_VERSION, __version__

    typer.echo(f"clawmark {__version__} (protocol {PROTOCOL_VERSION})")


if __name__ == "__main__":
    app()
