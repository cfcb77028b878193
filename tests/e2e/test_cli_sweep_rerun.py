"""A rerun finishes the job, for real (issue 16): a sweep whose first run left error rows (one
injected fault: an instance image that is not there, and an infra_error row written over a good
one) is run again; exactly the error cells run again, every measured failure keeps its row, the
replaced rows stay readable as history, and `clawmark sweep rerun-failed` does the same from the
CLI. The screen shows one line per cell with its reason and no traceback unless --verbose; the
tracebacks are in the sweep's log file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
import yaml

from clawmark.results import ResultStore
from clawmark.results.history import read_history
from clawmark.settings import TASKS_CATALOG

pytestmark = [pytest.mark.docker, pytest.mark.slow]

INI = "clawmark-fixtures__iniparse-py-1"
GONE = f"{INI}-gone"


@pytest.fixture
def spec_file(tmp_path):
    """oracle and nop on the iniparse fixture, and on a copy naming an image that is not present
    (on a loopback registry that does not exist, should anything try to pull it)."""
    line = next(ln for ln in (TASKS_CATALOG / "swe" / "instances.jsonl").read_text().splitlines() if INI in ln)
    row = json.loads(line)
    row["repo_bundle"] = str(TASKS_CATALOG / "swe" / row["repo_bundle"])
    gone = {**row, "instance_id": GONE, "image": "127.0.0.1:9/clawmark/no-such-image:missing"}
    (tmp_path / "instances.jsonl").write_text("\n".join(json.dumps(r) for r in (row, gone)) + "\n")
    path = tmp_path / "rerun.yaml"
    path.write_text(yaml.safe_dump({"sweep_id": "rerun", "instances": "instances.jsonl", "tasks": [INI, GONE],
                                    "claws": ["oracle", "nop"], "models": ["scripted/demo"], "max_parallel": 2}))
    return path


def _run(*args):
    """The real command in its own process, on the test's Prefect server; provision's retries of
    the missing image wait 0.5 s, then 1 s."""
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value(), "CLAWMARK_STAGE_BACKOFF_S": "0.5"}
    done = subprocess.run([sys.executable, "-m", "clawmark.cli.main", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=900)
    return SimpleNamespace(exit_code=done.returncode, output=done.stdout + done.stderr)


def _rows(store: ResultStore) -> dict[tuple[str, str], dict]:
    return {(r["task_id"], r["claw"]): r for r in store.read("rerun").to_dict("records")}


def _attempts(store: ResultStore) -> dict[tuple[str, str], str]:
    return {key: row["attempt_id"] for key, row in _rows(store).items()}


def _inject_outage(store: ResultStore, cell_key: str) -> str:
    """The good row of a cell replaced by an infra_error row, as an engine outage leaves it."""
    row = store.read_row("rerun", cell_key)
    outage = {**row.model_dump(), "attempt_id": f"outage-{row.attempt_id}", "status": "infra_error", "passed": None,
              "resolved": None, "resolution": None, "error_kind": None, "error_message": "engine went away"}
    store.write(type(row).model_validate(outage))
    return outage["attempt_id"]


def test_a_rerun_retries_exactly_the_error_rows(docker_client, prefect_harness, spec_file, tmp_path):
    results = tmp_path / "results"
    store = ResultStore(results)
    first = _run("sweep", spec_file, "--results", results)
    assert first.exit_code == 0, first.output
    lines = [ln for ln in first.output.splitlines() if ln.startswith("[")]
    assert len(lines) == 4 and "Traceback" not in first.output, first.output
    assert sum(f"infra_error   {GONE}" in ln and "— provision: InstanceImageMissing" in ln for ln in lines) == 2
    log = (results / "sweeps" / "rerun" / "sweep.log").read_text()
    assert "Traceback (most recent call last)" in log and "InstanceImageMissing" in log
    assert f"left: 2 infra_error — the next run retries them: clawmark sweep {spec_file}" in first.output

    before = _rows(store)
    assert (before[INI, "oracle"]["status"], before[INI, "nop"]["status"]) == ("resolved", "empty_patch")
    injected = _inject_outage(store, before[INI, "oracle"]["cell_key"])
    again = _run("sweep", spec_file, "--results", results, "--retry-errors", "1")
    assert again.exit_code == 0, again.output
    after = _rows(store)
    assert after[INI, "nop"]["attempt_id"] == before[INI, "nop"]["attempt_id"]  # a measured failure stays
    assert after[INI, "oracle"]["status"] == "resolved" and after[INI, "oracle"]["attempt_id"] != injected
    assert all(after[GONE, c]["attempt_id"] != before[GONE, c]["attempt_id"] for c in ("oracle", "nop"))
    assert "3 run (3 error rows retried), 1 reused" in again.output and "Traceback" not in again.output
    history = read_history(store, "rerun")
    assert sorted(history["attempt_id"]) == sorted([injected, before[GONE, "oracle"]["attempt_id"],
                                                    before[GONE, "nop"]["attempt_id"]])
    assert (results / "cells" / "_history" / "rerun").is_dir()
    rerun_hint = f"clawmark sweep rerun-failed rerun --spec {spec_file} --results {store.location}"
    assert f"left: 2 infra_error after 1 retries — to try again: {rerun_hint}" in again.output

    third = _run("sweep", spec_file, "--results", results, "--retry-errors", "1")  # past the bound: nothing runs
    assert third.exit_code == 0 and "0 run, 4 reused" in third.output and rerun_hint in third.output
    assert _attempts(store) == {key: row["attempt_id"] for key, row in after.items()}

    injected = _inject_outage(store, after[INI, "oracle"]["cell_key"])
    rerun = _run("sweep", "rerun-failed", "rerun", "--spec", spec_file, "--results", results,
                 "--statuses", "infra_error", "--verbose")
    assert rerun.exit_code == 0, rerun.output
    last = _rows(store)
    assert last[INI, "oracle"]["status"] == "resolved" and last[INI, "oracle"]["attempt_id"] != injected
    assert last[INI, "nop"]["attempt_id"] == before[INI, "nop"]["attempt_id"]
    assert all(last[GONE, c]["attempt_id"] != after[GONE, c]["attempt_id"] for c in ("oracle", "nop"))
    assert "3 run" in rerun.output and "Traceback (most recent call last)" in rerun.output  # --verbose shows it
