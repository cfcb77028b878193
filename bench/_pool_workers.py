"""bench/sweep.py's pool figure: cells per minute of one `clawmark sweep --pool` of `nop` cells with
1, 2 and 3 process workers of one pool on this machine, against a `clawmark server start` of
its own (SQLite), each sweep into its own results folder. A pool cell is a flow run in a fresh
Python process (the process worker's way), so this is what a pool adds per cell beside the
in-process sweep of figure 1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

import yaml

PYTHON = sys.executable
READY = "Prefect server ready: UI "


@contextmanager
def _server(home: Path):
    proc = subprocess.Popen([PYTHON, "-m", "clawmark.cli.main", "server", "start", "--port", "0", "--home", str(home)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True).start()
    try:
        deadline = time.monotonic() + 300
        while not any(line.startswith(READY) for line in lines):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("clawmark server start failed:\n" + "".join(lines)[-3000:])
            time.sleep(0.3)
        yield next(line for line in lines if line.startswith(READY))[len(READY):].split()[0]
    finally:
        _stop(proc)


@contextmanager
def _worker(env: dict[str, str], pool: str, log: Path):
    with log.open("ab") as sink:
        proc = subprocess.Popen([PYTHON, "-m", "prefect", "worker", "start", "--pool", pool, "--type", "process"],
                                env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 300
            while "started!" not in log.read_text(errors="replace"):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"worker did not start:\n{log.read_text(errors='replace')[-3000:]}")
                time.sleep(0.3)
            yield proc
        finally:
            _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def bench_pool(tmp: Path, instances: Path, task: str, cells: int, counts: list[int]) -> None:
    with _server(tmp / "prefect-home") as ui_url:
        env = {**os.environ, "PREFECT_API_URL": f"{ui_url}/api", "PREFECT_HOME": str(tmp / "client-home"),
               "PREFECT_WORKER_QUERY_SECONDS": "1", "CLAWMARK_HOME": str(tmp / "clawmark-home")}
        for count in counts:
            pool = f"bench-{count}"
            subprocess.run([PYTHON, "-m", "prefect", "--no-prompt", "work-pool", "create", pool, "--type", "process"],
                           env=env, check=True, capture_output=True, timeout=300)
            spec = tmp / f"{pool}.yaml"
            spec.write_text(yaml.safe_dump({"sweep_id": pool, "instances": str(instances), "tasks": [task],
                                            "claws": ["nop"], "models": ["scripted/demo"],
                                            "seeds": list(range(cells)), "max_parallel": count}))
            with ExitStack() as stack:
                for number in range(count):
                    stack.enter_context(_worker(env, pool, tmp / f"{pool}-w{number}.log"))
                started = time.perf_counter()
                done = subprocess.run([PYTHON, "-m", "clawmark.cli.main", "sweep", str(spec), "--pool", pool,
                                       "--results", str(tmp / f"{pool}-results")], env=env, capture_output=True,
                                      text=True, timeout=3600)
                seconds = time.perf_counter() - started
            if done.returncode != 0:
                raise SystemExit(f"pool sweep with {count} workers failed:\n{(done.stdout + done.stderr)[-3000:]}")
            print(f"6. pool, {count} worker{'s' if count > 1 else ''}: {cells} nop cells in {seconds:6.1f} s = "
                  f"{cells / seconds * 60:5.1f} cells/min ({seconds / cells:5.2f} s/cell)", flush=True)
