"""`clawmark sweep --pool` for real: a `clawmark server start`, two process workers of one pool on
this machine, real Docker, the oracle and nop claws on patch cells. One worker's whole process
tree is SIGKILLed while it runs a cell (its cell lease held, its container up): every cell still
ends with exactly one row and one completed run, the cell the dead worker held is run again by
the other worker, and the dead run's containers are reaped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml

from clawmark.results import ResultStore
from clawmark.results.lease import cell_lease_dir
from clawmark.settings import TASKS_CATALOG
from tests.support.prefect_server import PROJECT, PREFECT, api, await_polling, client_env, run, running_server, worker

pytestmark = [pytest.mark.docker, pytest.mark.slow]
POOL, SWEEP = "pool-test", "pool"


def _descendants(root: int) -> set[int]:
    """`root` and every process below it (the worker, the flow runs it started, their children)."""
    parents: dict[int, list[int]] = defaultdict(list)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents[ppid].append(int(entry.name))
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo += parents.get(pid, [])
    return found


def _held_by(results: Path, pids: set[int], docker_client) -> list[tuple[str, int]]:
    """Cells whose lease a process of `pids` holds while one of its containers is up."""
    import json

    held = []
    for lease in (results / "sweeps" / SWEEP / "running").glob("*.json"):
        try:
            pid = int(json.loads(lease.read_text())["pid"])
        except (OSError, ValueError, KeyError):
            continue
        if pid in pids and docker_client.containers.list(filters={"label": f"clawmark.owner_pid={pid}"},
                                                         ignore_removed=True):
            held.append((lease.stem, pid))
    return held


def _kill_tree(pids: set[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _await_victim(proc, results, victim, docker_client, timeout_s=900.0) -> list[tuple[str, int]]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        if held := _held_by(results, _descendants(victim.pid), docker_client):
            return held
        time.sleep(0.5)
    out = proc.stdout.read() if proc.poll() is not None else ""
    raise AssertionError(f"worker {victim.pid} never held a cell with a container up; sweep output:\n{out[-4000:]}")


def _cell_runs(ui_url: str) -> dict[str, list[dict]]:
    [deployment] = [d for d in api(ui_url, "POST", "/deployments/filter", {}) if d["name"] == POOL]
    runs = api(ui_url, "POST", "/flow_runs/filter", {"flow_runs": {"deployment_id": {"any_": [deployment["id"]]}}})
    by_cell = defaultdict(list)
    for flow_run in runs:
        by_cell[flow_run["parameters"]["cell_key"]].append(flow_run)
    return by_cell


def test_two_workers_one_killed_every_cell_once_and_its_containers_reaped(docker_client, tmp_path):
    results, spec_file = tmp_path / "results", tmp_path / "pool.yaml"
    spec_file.write_text(yaml.safe_dump({
        "sweep_id": SWEEP, "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
        "tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": ["oracle", "nop"], "models": ["scripted/demo"],
        "seeds": [0, 1, 2], "max_parallel": 2}))
    with running_server(tmp_path / "prefect-home") as ui_url:
        env = client_env(ui_url, tmp_path / "client-home", PREFECT_WORKER_QUERY_SECONDS="2",
                         CLAWMARK_HOME=str(tmp_path / "clawmark-home"), LITELLM_LOCAL_MODEL_COST_MAP="True",
                         PYTHONUNBUFFERED="1")
        run([*PREFECT, "work-pool", "create", POOL, "--type", "process"], env, timeout_s=180)
        # Both workers poll before the sweep starts, then the survivor is paused until the victim
        # holds a cell: left to race, one worker could take every cell (seen in CI under load).
        with worker(env, POOL, log=tmp_path / "victim.log") as victim, \
                worker(env, POOL, log=tmp_path / "survivor.log") as survivor:
            await_polling(victim, tmp_path / "victim.log")
            await_polling(survivor, tmp_path / "survivor.log")
            os.killpg(survivor.pid, signal.SIGSTOP)
            sweep = subprocess.Popen(
                [sys.executable, "-m", "clawmark.cli.main", "sweep", str(spec_file), "--pool", POOL,
                 "--results", str(results)], env=env, cwd=PROJECT, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True)
            try:
                held = _await_victim(sweep, results, victim, docker_client)
            finally:
                os.killpg(survivor.pid, signal.SIGCONT)
            killed = _descendants(victim.pid)
            _kill_tree(killed)
            output, _ = sweep.communicate(timeout=1800)
            assert sweep.returncode == 0, output[-6000:]
            assert survivor.poll() is None  # the other worker carried the sweep to its end
            by_cell = _cell_runs(ui_url)

    frame = ResultStore(results).read(SWEEP)
    assert len(frame) == 6 and frame["cell_key"].is_unique, frame[["cell_key", "claw", "seed"]]
    assert Counter(frame["status"]) == {"resolved": 3, "empty_patch": 3}, frame["error_message"].tolist()
    assert set(by_cell) == set(frame["cell_key"])  # no cell was lost, none was invented
    for key, runs in by_cell.items():
        states = Counter(r["state_type"] for r in runs)
        assert states["COMPLETED"] == 1 and set(states) <= {"COMPLETED", "CRASHED"}, (key, states)
    survivor_log = (tmp_path / "survivor.log").read_text()
    for key, pid in held:
        assert {r["state_type"] for r in by_cell[key]} == {"COMPLETED", "CRASHED"}, key
        [rerun] = [r for r in by_cell[key] if r["state_type"] == "COMPLETED"]
        assert rerun["id"] in survivor_log  # the surviving worker ran it again
    for pid in killed:  # what the dead worker's runs had started is gone
        assert docker_client.containers.list(all=True, filters={"label": f"clawmark.owner_pid={pid}"},
                                             ignore_removed=True) == []
    assert list((results / "sweeps" / SWEEP / "running").glob("*.json")) == []
    assert str(cell_lease_dir(ResultStore(results), SWEEP)).endswith("/running")
    assert "[6/6]" in output
