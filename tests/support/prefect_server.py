"""A real Prefect server for tests, started the way users start it (`clawmark server start`), plus
the clients users run against it (`prefect deploy`, workers, `clawmark sweep`) as subprocesses.

Every server gets a free port and its own home, and is stopped (then its process group killed)
when the `with` block ends; every wait is bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.support.paths import REPO

PROJECT = REPO
PREFECT = [sys.executable, "-m", "prefect", "--no-prompt"]
READY_PREFIX = "Prefect server ready: UI "


@contextmanager
def running_server(home: Path, *, database_url: str | None = None, ready_s: float = 300.0,
                   host: str = "127.0.0.1") -> Iterator[str]:
    """`clawmark server start --port 0 --host HOST` in its own session; yields the UI base URL."""
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "PREFECT_SERVER_DATABASE_CONNECTION_URL")}
    if database_url:
        env["PREFECT_SERVER_DATABASE_CONNECTION_URL"] = database_url
    command = [sys.executable, "-m", "clawmark.cli.main", "server", "start", "--port", "0", "--host", host, "--home", str(home),
               "--ready-timeout", str(ready_s)]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        yield _await_ready(proc, lines, ready_s + 30)
    finally:
        _stop(proc)


def _await_ready(proc: subprocess.Popen, lines: list[str], timeout_s: float) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ready = next((line for line in list(lines) if line.startswith(READY_PREFIX)), None)
        if ready:
            return ready[len(READY_PREFIX):].split()[0]
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    raise AssertionError(f"clawmark server start never got ready; output:\n{''.join(lines)}")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # whatever of the session is left (the prefect child)
    except ProcessLookupError:
        pass
    proc.wait(30)


def client_env(ui_url: str, home: Path, **extra: str) -> dict[str, str]:
    """What a user's shell has after `export PREFECT_API_URL=…`: clients with their own home."""
    home.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "PREFECT_API_URL": f"{ui_url}/api", "PREFECT_HOME": str(home), **extra}


def run(command: list[str], env: dict[str, str], timeout_s: float = 600, cwd: Path = PROJECT) -> str:
    """Run a command to its end; fail with its output when it fails."""
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout_s)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{output[-4000:]}"
    return output


def api(ui_url: str, method: str, path: str, json: dict | None = None, busy_retries: int = 20) -> object:
    """One call to the server's REST API, as Prefect's own client makes it: a 503 (on SQLite, a
    write transaction that lost a race with the server's own writers, rolled back) is asked again."""
    for attempt in range(busy_retries + 1):
        response = httpx.request(method, f"{ui_url}/api{path}", json=json, timeout=30)
        if response.status_code != 503 or attempt == busy_retries:
            break
        time.sleep(0.2 * (attempt + 1))
    response.raise_for_status()
    return response.json()


def deployments(ui_url: str) -> dict[str, dict]:
    return {d["name"]: d for d in api(ui_url, "POST", "/deployments/filter", {})}


def wait_flow_run(ui_url: str, flow_run_id: str, timeout_s: float = 900) -> dict:
    """Poll a flow run until it reaches a final state (or the wait runs out); return it."""
    deadline, run_ = time.monotonic() + timeout_s, {}
    while time.monotonic() < deadline:
        run_ = api(ui_url, "GET", f"/flow_runs/{flow_run_id}")
        if run_["state_type"] in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED"):
            return run_
        time.sleep(2)
    raise AssertionError(f"flow run {flow_run_id} still {run_.get('state_type')} after {timeout_s:.0f} s")


def deploy_all(env: dict[str, str], pool: str = "clawmark") -> str:
    """What the README has a user type: create the process pool, then `prefect deploy --all`."""
    run([*PREFECT, "work-pool", "create", pool, "--type", "process"], env, timeout_s=180)
    return run([*PREFECT, "deploy", "--all"], env, timeout_s=600)


@contextmanager
def worker(env: dict[str, str], pool: str = "clawmark", log: Path | None = None) -> Iterator[subprocess.Popen]:
    """`prefect worker start --pool POOL` in its own session, stopped (and its group killed) at exit."""
    sink = log.open("ab") if log else subprocess.DEVNULL
    proc = subprocess.Popen([*PREFECT, "worker", "start", "--pool", pool, "--type", "process"], env=env,
                            cwd=PROJECT, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield proc
    finally:
        _stop(proc)
        if log:
            sink.close()


def await_polling(worker_proc, log: Path, timeout_s: float = 300.0) -> None:
    """Until the worker says it started (it polls the pool from then on)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and worker_proc.poll() is None:
        if "started!" in log.read_text(errors="replace"):
            return
        time.sleep(0.5)
    raise AssertionError(f"worker {worker_proc.pid} never started:\n{log.read_text(errors='replace')[-3000:]}")
