"""`clawmark gateway ...` commands."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import typer

app = typer.Typer(no_args_is_help=True)


@app.command("serve")
def serve(
    host: str = typer.Option(None, help="Bind address (default: CLAWMARK_GATEWAY_HOST)."),
    port: int = typer.Option(None, help="Port (default: CLAWMARK_GATEWAY_PORT; 0 picks a free one)."),
    ledger_dir: Path = typer.Option(None, help="Per-attempt ledgers go here (default: $CLAWMARK_HOME/ledgers)."),
    record: Path = typer.Option(None, help="Recording on: append every reply to <DIR>/<attempt_id>.yaml."),
    allow_unregistered: bool = typer.Option(
        False, help="Serve any attempt id with the model the request names. Anyone who reaches the "
                    "port then spends your provider keys: keep the default loopback address."),
) -> None:
    """Serve the model gateway (/a/<attempt_id>/<role>/v1/...) until Ctrl-C. It registers no
    attempt itself, so it refuses every call unless --allow-unregistered."""
    from clawmark.gateway.prices import PriceFileError, PriceTable
    from clawmark.gateway.server import GatewayConfig, GatewayServer
    from clawmark.gateway.serving import ServerStartError
    from clawmark.settings import settings

    conf = settings()
    try:
        PriceTable.from_settings()  # a bad CLAWMARK_PRICES file fails now, not at the first call
        config = GatewayConfig(host=host or conf.gateway_host, port=conf.gateway_port if port is None else port,
                               ledger_dir=ledger_dir or conf.home / "ledgers", allow_unregistered=allow_unregistered,
                               record_dir=record)
        gateway = GatewayServer(config).start()
    except (PriceFileError, ServerStartError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    shown = "127.0.0.1" if config.host in ("0.0.0.0", "::") else config.host
    typer.echo(f"gateway listening on http://{config.host}:{gateway.port}  ledgers: {config.ledger_dir}")
    if not allow_unregistered:
        typer.echo("refusing unregistered attempts (every one, here): pass --allow-unregistered to serve by hand")
    typer.echo(f"try: curl {gateway.base_url('demo', 'executor', host=shown)}/chat/completions "
               "-H 'content-type: application/json' -d '{\"model\":\"scripted/demo\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}'")
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):  # explicit: a background job inherits SIGINT ignored
        signal.signal(signum, lambda *_: stop.set())
    try:
        while not stop.wait(3600):
            pass
        typer.echo("stopping")
    finally:
        gateway.stop()


@app.command("ledger")
def ledger(path: Path = typer.Argument(..., help="A ledger JSONL file (one per attempt).")) -> None:
    """Print a ledger's totals per role (tokens, cost; NaN cost = some call was unpriced)."""
    from clawmark.cli.console import console
    from rich.table import Table

    from clawmark.gateway.ledger import TOKEN_FIELDS, summarize_ledger

    if not path.is_file():
        typer.echo(f"error: {path}: no such ledger file", err=True)
        raise typer.Exit(2)
    try:
        totals = summarize_ledger(path)
    except ValueError as exc:
        typer.echo(f"error: {path}: not a ledger (expected JSONL of usage records): {str(exc).splitlines()[0]}", err=True)
        raise typer.Exit(2) from None
    table = Table("role", "calls", "errors", *TOKEN_FIELDS, "cost_usd")
    for role, row in totals.items():
        table.add_row(role, *(str(int(row.get(k, 0))) for k in ("calls", "errors", *TOKEN_FIELDS)), f"{row['cost_usd']:.6f}")
    console().print(table)
