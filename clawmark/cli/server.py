"""`clawmark server start`: a local Prefect server for sweeps, deployments and the UI.

It runs `prefect server start` in a child process with the project's hermetic settings (its own
PREFECT_HOME under CLAWMARK_HOME, analytics and telemetry off, quiet logs in a file), waits until
the API answers, prints the UI address, then stays in the foreground until stopped (Ctrl-C or
SIGTERM stops the server too). SQLite under that home by default; PostgreSQL through Prefect's
own setting, `PREFECT_SERVER_DATABASE_CONNECTION_URL=postgresql+asyncpg://…` (or `--database-url`).
Prefect runs as a separate program here, so this module never imports it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import typer

app = typer.Typer(no_args_is_help=True)
DB_SETTING = "PREFECT_SERVER_DATABASE_CONNECTION_URL"
QUIET = {
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "60",
}


def prefect_home() -> Path:
    """The project's Prefect home (server database, profiles, logs): <CLAWMARK_HOME>/prefect."""
    from clawmark.settings import settings

    return settings().prefect_home


def free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def server_env(home: Path, database_url: str | None, host: str, port: int) -> dict[str, str]:
    """The child's environment: hermetic, quiet, never pointing at another server's API. The UI
    is told its API address: by default it assumes port 4200, whatever `--port` said."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(QUIET, PREFECT_HOME=str(home), PREFECT_SERVER_API_HOST=host, PREFECT_SERVER_API_PORT=str(port),
               PREFECT_UI_API_URL=f"http://{host}:{port}/api")
    if database_url:
        env[DB_SETTING] = database_url
    return env


def describe_database(env: dict[str, str], home: Path) -> str:
    """Where the server keeps its state, without the password of a database URL."""
    url = env.get(DB_SETTING)
    if not url:
        return f"SQLite in {home}"
    parts = urlsplit(url)
    return f"{parts.scheme} at {parts.hostname}:{parts.port or 5432}{parts.path}"


def wait_ready(api_url: str, child: subprocess.Popen, timeout_s: float) -> bool:
    """Poll the health endpoint until it answers, the child dies, or the wait runs out."""
    import httpx

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and child.poll() is None:
        try:
            if httpx.get(f"{api_url}/health", timeout=2.0).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    return False


def stop(child: subprocess.Popen, grace_s: float = 15.0) -> None:
    if child.poll() is None:
        child.terminate()
        try:
            child.wait(grace_s)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(grace_s)


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _raise_interrupt(*_: object) -> None:
    raise KeyboardInterrupt


@app.command("start")
def start(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (loopback unless you mean to share it)."),
    port: int = typer.Option(4200, "--port", help="Port of the API and UI; 0 picks a free one."),
    home: Path | None = typer.Option(None, "--home", help="PREFECT_HOME of the server (default: <CLAWMARK_HOME>/prefect)."),
    database_url: str | None = typer.Option(None, "--database-url", envvar=DB_SETTING,
                                            help="postgresql+asyncpg://user:pass@host:port/db (default: SQLite in the home)."),
    ready_timeout: float = typer.Option(180.0, "--ready-timeout", help="Seconds to wait for the API to answer."),
) -> None:
    """Run a local Prefect server (SQLite, or PostgreSQL via its URL) and print the UI address."""
    home = (home or prefect_home()).resolve()
    home.mkdir(parents=True, exist_ok=True)
    port = port or free_port(host)
    env, log_path = server_env(home, database_url, host, port), home / "server.log"
    command = [sys.executable, "-m", "prefect", "server", "start", "--host", host, "--port", str(port),
               "--analytics-off", "--log-level", "WARNING"]
    with log_path.open("ab") as log:
        child = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    signal.signal(signal.SIGTERM, _raise_interrupt)  # stop the server in `finally`, outside the handler
    url = f"http://{host}:{port}"
    try:
        if not wait_ready(f"{url}/api", child, ready_timeout):
            stop(child)
            typer.echo(f"prefect server did not answer on {url}/api within {ready_timeout:.0f} s; "
                       f"last lines of {log_path}:\n{_tail(log_path)}", err=True)
            raise typer.Exit(1)
        typer.echo(f"Prefect server ready: UI {url}  (database: {describe_database(env, home)}; log {log_path})")
        typer.echo(f"Point clawmark and workers at it:  export PREFECT_API_URL={url}/api")
        sys.stdout.flush()
        exited = child.wait()
    except KeyboardInterrupt:
        exited = 0
    finally:
        stop(child)
    if exited != 0:  # the server died on its own, not by our stop
        typer.echo(f"prefect server exited with {exited}; last lines of {log_path}:\n{_tail(log_path)}", err=True)
        raise typer.Exit(1)
