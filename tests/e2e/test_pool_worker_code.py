"""A pool worker whose clawmark is not the sweep's code runs none of its cells, and the sweep says
why: the `cell` deployment's pull step (clawmark/sweeps/worker_code.py) refuses each run, naming
both codes. The worker runs a copy of this checkout with one file changed (PYTHONPATH puts the copy
before the installed package), against a `clawmark server start` of its own."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from clawmark.runtime.shipped_code import code_digest, copy_shipped
from clawmark.settings import TASKS_CATALOG
from tests.support.prefect_server import PREFECT, PROJECT, await_polling, client_env, running_server, worker

pytestmark = [pytest.mark.docker, pytest.mark.slow]
POOL, SWEEP = "pool-other-code", "other-code"


def _changed_copy(dest):
    copy_shipped(PROJECT, dest)
    cell = dest / "flows" / "cell.py"
    cell.write_text(cell.read_text() + "\n# a worker's local edit\n")
    return dest


def test_a_worker_running_other_code_is_refused_and_the_sweep_says_why(tmp_path):
    checkout = _changed_copy(tmp_path / "other-checkout")
    theirs, ours = code_digest(checkout), code_digest(PROJECT)
    assert theirs != ours
    spec = tmp_path / "sweep.yaml"
    spec.write_text(yaml.safe_dump({"sweep_id": SWEEP, "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
                                    "tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": ["nop"],
                                    "models": ["scripted/demo"], "seeds": [0], "max_parallel": 1}))
    with running_server(tmp_path / "prefect-home") as ui_url:
        env = client_env(ui_url, tmp_path / "client-home", PREFECT_WORKER_QUERY_SECONDS="1",
                         CLAWMARK_HOME=str(tmp_path / "home"))
        subprocess.run([*PREFECT, "work-pool", "create", POOL, "--type", "process"], env=env, check=True,
                       capture_output=True, timeout=300)
        log = tmp_path / "worker.log"
        with worker({**env, "PYTHONPATH": str(checkout)}, POOL, log=log) as proc:
            await_polling(proc, log)
            done = subprocess.run([sys.executable, "-m", "clawmark.cli.main", "sweep", str(spec), "--pool", POOL,
                                   "--results", str(tmp_path / "results")], env=env, cwd=PROJECT,
                                  capture_output=True, text=True, timeout=900)
    output = done.stdout + done.stderr
    assert ": 0 run, 0 reused" in output and "1 cells without a row" in output, output[-4000:]
    assert output.count("without a row") >= 3, output[-4000:]  # the first run and both resubmissions
    assert f"this worker runs clawmark code {theirs}" in output, output[-4000:]
    assert f"started from code {ours}" in output, output[-4000:]
    assert not (tmp_path / "results" / "sweeps" / SWEEP / "cells").exists() or \
        not list((tmp_path / "results" / "sweeps" / SWEEP / "cells").iterdir())
