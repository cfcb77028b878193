"""`clawmark sweep --pool` for real (a `clawmark server start`, a process worker, real Docker),
on what the local sweep already handles: `--force` reruns every committed cell on the pool once,
and a results disk that fills up mid-sweep (a small tmpfs, filled once the first row lands)
stops the sweep with the local sweep's message, no corrupt row, and the next run finishing it."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections import Counter, defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from clawmark.results import ResultStore
from tests.support.prefect_server import PREFECT, PROJECT, api, client_env, run, running_server, worker
from tests.support.fault_sweeps import assert_kept, rows, spec
from tests.faults.test_disk_full import fill_when_first_row_lands, small_disk  # noqa: F401 - fixture

pytestmark = [pytest.mark.docker, pytest.mark.slow]
POOL = "pool-faults"


@pytest.fixture(scope="module")
def pool(docker_client, tmp_path_factory):
    """One server and one worker for this module's sweeps. The disk floor is off: the preflight
    would prune the shared engine's instance images for a 64 MB results disk."""
    home = tmp_path_factory.mktemp("pool-faults")
    with running_server(home / "prefect-home") as ui_url:
        env = client_env(ui_url, home / "client-home", PREFECT_WORKER_QUERY_SECONDS="2", PYTHONUNBUFFERED="1",
                         CLAWMARK_HOME=str(home / "clawmark-home"), LITELLM_LOCAL_MODEL_COST_MAP="True",
                         CLAWMARK_DISK_FLOOR_GB="0")
        run([*PREFECT, "work-pool", "create", POOL, "--type", "process"], env, timeout_s=180)
        with worker(env, POOL, log=home / "worker.log"):
            yield SimpleNamespace(ui_url=ui_url, env=env)


def sweep(pool, spec_file: Path, results: Path, *extra: str, name: str = POOL,
          env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "clawmark.cli.main", "sweep", str(spec_file), "--pool", name,
                           "--results", str(results), *extra], env=env or pool.env, cwd=PROJECT, capture_output=True,
                          text=True, timeout=1500)


def cell_runs(ui_url: str, sweep_id: str) -> dict[str, list[dict]]:
    runs = api(ui_url, "POST", "/flow_runs/filter", {"flow_runs": {"tags": {"all_": [f"sweep:{sweep_id}"]}}})
    by_cell = defaultdict(list)
    for flow_run in runs:
        if "cell_key" in flow_run["parameters"]:  # not the coordinator's own run
            by_cell[flow_run["parameters"]["cell_key"]].append(flow_run)
    return by_cell


def test_force_on_a_pool_reruns_every_committed_cell_once(pool, tmp_path):
    spec_file, results = tmp_path / "forced.yaml", tmp_path / "results"
    spec_file.write_text(yaml.safe_dump(spec("forced", ["nop"], ["scripted/demo"], seeds=[0, 1, 2], max_parallel=2)))
    first = sweep(pool, spec_file, results)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    before = rows(ResultStore(results), "forced")
    assert len(before) == 3

    forced = sweep(pool, spec_file, results, "--force")
    assert forced.returncode == 0, forced.stdout[-3000:] + forced.stderr[-3000:]
    after = rows(ResultStore(results), "forced")
    assert set(after) == set(before)
    assert all(after[k]["attempt_id"] != before[k]["attempt_id"] for k in before)  # each ran again
    assert Counter(r["status"] for r in after.values()) == {"empty_patch": 3}
    for key, runs in cell_runs(pool.ui_url, "forced").items():
        rerun = [r for r in runs if r["parameters"].get("replaces")]
        assert [r["parameters"]["replaces"] for r in rerun] == [before[key]["attempt_id"]], key
        assert Counter(r["state_type"] for r in rerun) == {"COMPLETED": 1}, key


def test_a_full_results_disk_stops_a_pool_sweep_cleanly_and_the_next_run_finishes(pool, small_disk, tmp_path):
    spec_file, results = tmp_path / "full.yaml", small_disk / "results"
    spec_file.write_text(yaml.safe_dump(spec("full", ["oracle", "nop"], ["scripted/demo"], seeds=[0, 1])))
    store, filler, stop = ResultStore(results), small_disk / "filler.bin", threading.Event()
    watcher = threading.Thread(target=fill_when_first_row_lands, daemon=True,
                               args=(results / "rows" / "full", filler, stop))
    watcher.start()
    try:
        stopped = sweep(pool, spec_file, results)
    finally:
        stop.set()
        watcher.join(30)
    assert stopped.returncode == 1, stopped.stdout[-3000:] + stopped.stderr[-3000:]
    before = rows(store, "full")  # every row file that exists reads: none is half-written
    assert 1 <= len(before) < 4
    assert f"results disk full under {store.root}: the sweep stopped with {4 - len(before)} cell(s) not run" \
        in stopped.stderr, stopped.stderr[-3000:]
    assert "run the sweep again" in stopped.stderr
    runs = cell_runs(pool.ui_url, "full")  # one cell at a time: the one the full disk hit, and no later one
    assert len(runs) == len(before) + 1, {k: [r["state_name"] for r in v] for k, v in runs.items()}
    [hit] = set(runs) - set(before)
    assert [(r["state_type"], r["state_name"]) for r in runs[hit]] == [("FAILED", "ResultsDiskFull")]

    filler.unlink()  # space is freed
    again = sweep(pool, spec_file, results)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    after = rows(store, "full")
    assert len(after) == 4
    assert_kept(before, after)
    assert sorted(r["status"] for r in after.values()) == ["empty_patch"] * 2 + ["resolved"] * 2


def test_a_pool_sweep_whose_worker_engine_stays_down_stops_with_no_row(pool, tmp_path):
    """A worker whose DOCKER_HOST names a socket where nothing answers: its cell run waits, then
    ends EngineStayedDown, and the sweep stops as a local one does instead of trying every cell."""
    spec_file, results, down = tmp_path / "down.yaml", tmp_path / "results", "pool-faults-down"
    spec_file.write_text(yaml.safe_dump(spec("down", ["nop"], ["scripted/demo"], seeds=[0, 1, 2])))
    env = {**pool.env, "CLAWMARK_ENGINE_WAIT_S": "5"}
    run([*PREFECT, "work-pool", "create", down, "--type", "process"], env, timeout_s=180)
    with worker({**env, "DOCKER_HOST": f"unix://{tmp_path / 'no-engine.sock'}"}, down, log=tmp_path / "worker.log"):
        stopped = sweep(pool, spec_file, results, name=down, env=env)
    assert stopped.returncode == 1, stopped.stdout[-3000:] + stopped.stderr[-3000:]
    assert "Docker engine still not answering after 5 s: the sweep stopped with 3 cell(s) not run" \
        in stopped.stderr, stopped.stderr[-3000:]
    assert rows(ResultStore(results), "down") == {}
    runs = cell_runs(pool.ui_url, "down")  # one cell at a time: the first, and nothing after it
    assert [[(r["state_type"], r["state_name"]) for r in v] for v in runs.values()] == \
        [[("FAILED", "EngineStayedDown")]]
