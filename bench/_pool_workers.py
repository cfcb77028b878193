"""bench/sweep.py's pool figure: cells per minute of one `clawmark sweep --pool` of `nop` cells with
1, 2 and 3 process workers of one pool on this machine, against a `clawmark server start` of
its own (SQLite), each sweep into its own results folder. A pool cell is a flow run in a fresh
Python process (the process worker's way), so this is what a pool adds per cell beside the
in-process sweep of figure 1. The server and the workers are started as the pool tests start
them (tests/support/prefect_server.py)."""

from __future__ import annotations

import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import yaml

from tests.support.prefect_server import PREFECT, await_polling, client_env, running_server, worker


def bench_pool(tmp: Path, instances: Path, task: str, cells: int, counts: list[int]) -> None:
    with running_server(tmp / "prefect-home") as ui_url:
        env = client_env(ui_url, tmp / "client-home", PREFECT_WORKER_QUERY_SECONDS="1",
                         CLAWMARK_HOME=str(tmp / "clawmark-home"))
        for count in counts:
            pool = f"bench-{count}"
            subprocess.run([*PREFECT, "work-pool", "create", pool, "--type", "process"], env=env, check=True,
                           capture_output=True, timeout=300)
            spec = tmp / f"{pool}.yaml"
            spec.write_text(yaml.safe_dump({"sweep_id": pool, "instances": str(instances), "tasks": [task],
                                            "claws": ["nop"], "models": ["scripted/demo"],
                                            "seeds": list(range(cells)), "max_parallel": count}))
            with ExitStack() as stack:
                for number in range(count):
                    log = tmp / f"{pool}-w{number}.log"
                    await_polling(stack.enter_context(worker(env, pool, log=log)), log)
                started = time.perf_counter()
                done = subprocess.run([sys.executable, "-m", "clawmark.cli.main", "sweep", str(spec), "--pool", pool,
                                       "--results", str(tmp / f"{pool}-results")], env=env, capture_output=True,
                                      text=True, timeout=3600)
                seconds = time.perf_counter() - started
            if done.returncode != 0:
                raise SystemExit(f"pool sweep with {count} workers failed:\n{(done.stdout + done.stderr)[-3000:]}")
            print(f"6. pool, {count} worker{'s' if count > 1 else ''}: {cells} nop cells in {seconds:6.1f} s = "
                  f"{cells / seconds * 60:5.1f} cells/min ({seconds / cells:5.2f} s/cell)", flush=True)
