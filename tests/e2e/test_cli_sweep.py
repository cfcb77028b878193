"""`clawmark sweep` for real: a line per finished cell without a terminal, a rerun that reuses every
cell, `sweep status` from the store, a live lease refused, a changed protocol refused with what
differs and accepted under `--fork`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
import yaml

from clawmark.results import ResultStore
from clawmark.settings import TASKS_CATALOG

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "cli.yaml"
    path.write_text(yaml.safe_dump({
        "sweep_id": "cli", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
        "tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": ["oracle", "nop"], "models": ["scripted/demo"],
        "max_parallel": 2}))
    return path


def _run(*args):
    """The real command in its own process (as a user runs it), on the test's Prefect server."""
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value()}
    done = subprocess.run([sys.executable, "-m", "clawmark.cli.main", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=600)
    return SimpleNamespace(exit_code=done.returncode, output=done.stdout + done.stderr)


def test_sweep_cli_runs_resumes_and_reports_status(docker_client, prefect_harness, spec_file, tmp_path):
    results = tmp_path / "results"
    first = _run("sweep", spec_file, "--results", results)
    assert first.exit_code == 0, first.output
    assert "[2/2]" in first.output and "resolved" in first.output and "empty_patch" in first.output
    assert "2 run, 0 reused" in first.output and "clawmark report cli" in first.output

    again = _run("sweep", spec_file, "--results", results)
    assert again.exit_code == 0, again.output
    assert "0 run, 2 reused" in again.output and "[1/2]" not in again.output

    status = _run("sweep", "status", "cli", "--results", results)
    assert status.exit_code == 0 and "empty_patch 1, resolved 1" in status.output


def test_sweep_cli_refuses_a_live_lease_and_a_changed_protocol(docker_client, prefect_harness, spec_file, tmp_path):
    results = tmp_path / "results"
    store = ResultStore(results)
    lease = {"token": "other", "host": "another-host", "pid": 1, "started": time.time(), "heartbeat": time.time()}
    store.publish(f"{store.root}/sweeps/cli/lease.json", json.dumps(lease).encode())
    refused = _run("sweep", spec_file, "--results", results)
    assert refused.exit_code == 1 and "being run by pid 1 on another-host" in refused.output
    os.remove(f"{store.root}/sweeps/cli/lease.json")

    changed = tmp_path / "changed.yaml"
    spec = yaml.safe_load(spec_file.read_text())
    changed.write_text(yaml.safe_dump({**spec, "attempt": {"eval_timeout_s": 600}}))
    mismatch = _run("sweep", changed, "--results", results)
    assert mismatch.exit_code == 2 and "eval_timeout_s: 1800.0 → 600.0" in mismatch.output
    forked = _run("sweep", changed, "--results", results, "--fork", "cli-short-eval")
    assert forked.exit_code == 0, forked.output
    assert len(store.read("cli-short-eval")) == 2
