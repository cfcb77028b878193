"""`clawmark rejudge SWEEP_ID --supervisor-model M`: judge a finished sweep's closed-loop attempts again.

Re-runs only the supervise stage, from each attempt's saved artifacts (no executor, no new
follow-up; checks reused), through a gateway of its own that bills the new judge to the
supervisor role; the rows go to a new sweep (`--as`, default `<SWEEP_ID>--rejudge-<model>`).
`clawmark report` of either sweep then shows how the two judges agree. Exit codes: 0 every
attempt was judged or reused (skips of attempts with no judged turn are listed); 2 bad input.
"""

from __future__ import annotations

from pathlib import Path

import typer


def rejudge(
    sweep_id: str = typer.Argument(..., help="The finished sweep whose closed-loop attempts are judged again."),
    supervisor_model: str = typer.Option(..., "--supervisor-model", help="The new judge, e.g. openai/gpt-5 or "
                                         "scripted/<cassette> (`{task_id}` names a per-task family)."),
    as_id: str | None = typer.Option(None, "--as", help="Sweep id of the new rows (default: "
                                     "<SWEEP_ID>--rejudge-<model slug>)."),
    results: str | None = typer.Option(None, "--results", help="Result store: a folder or a filesystem URL "
                                       "(s3://…, any fsspec URL; default: CLAWMARK_RESULTS)."),
    tasks_dir: Path | None = typer.Option(None, "--tasks-dir", help="Task tree (default: each attempt's saved task file)."),
    force: bool = typer.Option(False, "--force", help="Judge again the attempts the new sweep already has."),
) -> None:
    """Judge the saved turns of SWEEP_ID's closed-loop attempts with another supervisor model."""
    from clawmark.attempts.rejudge import CellRejudged, RejudgeConfig, rejudge_sweep
    from clawmark.attempts.rejudge_cell import RejudgeError
    from clawmark.cli.console import console
    from clawmark.cli.sweep import _store  # the one parser of a --results store, shared with `clawmark sweep`
    from clawmark.results import ConfigMismatch, UnsafeName

    store, out = _store(results), console()
    config = RejudgeConfig(source_sweep=sweep_id, supervisor_model=supervisor_model, sweep_id=as_id,
                           tasks_dir=tasks_dir, force=force)
    counts = {"judged": 0, "reused": 0, "skipped": 0}

    def show(cell: CellRejudged) -> None:
        src, row = cell.source, cell.row
        name = f"{src.task_id} · {src.claw} · {src.model} · seed {src.seed}"
        if cell.skipped:
            counts["skipped"] += 1
            out.print(f"skipped {name}: {cell.skipped}", markup=False, highlight=False)
            return
        counts["reused" if cell.reused else "judged"] += 1
        out.print(f"{'reused' if cell.reused else 'judged'} {name}: {row.status} {_score(row.score)} "
                  f"(was {src.status} {_score(src.score)})", markup=False, highlight=False)

    try:
        target = config.target()
        with _host_gateway() as gateway:
            rejudge_sweep(store, config, gateway, on_cell=show)
    except (RejudgeError, ConfigMismatch, UnsafeName) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    out.print(f"rejudge {sweep_id} → {target}: {counts['judged']} judged, {counts['reused']} reused, "
              f"{counts['skipped']} skipped; agreement: clawmark report {target}", markup=False, highlight=False)


def _host_gateway():
    """A gateway on the host only: the new judge is its one caller, and no container calls it
    (a check run again in its container never calls a model), so no Docker network is needed."""
    from clawmark.gateway.server import GatewayConfig, GatewayServer
    from clawmark.settings import settings
    from clawmark.sweeps.shared_gateway import client_config

    conf = settings()
    return GatewayServer(GatewayConfig(host=conf.gateway_host, port=conf.gateway_port,
                                       ledger_dir=conf.home / "ledgers", client=client_config(), require_tokens=True))


def _score(value: float) -> str:
    return "—" if value != value else f"{value:.2f}"
