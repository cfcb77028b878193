"""A pool's cell run (flows/cell.py) as a local sweep's cell: it waits for a Docker engine that is
not answering yet and then runs its cell, ends typed (no row, no lease left) when the engine
stays down or the results disk is full, and a late resubmission of a forced cell does not run it
a second time. Real Prefect (the session's temporary server), real Docker, the `nop` claw."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from clawmark.results import ResultStore
from clawmark.sweeps import SweepSpec, plan_sweep
from tests.e2e.test_pool_cap import coordinates
from tests.support.fault_sweeps import spec as fixture_spec

pytestmark = [pytest.mark.docker, pytest.mark.slow]
REAL_SOCKET = "/var/run/docker.sock"


@pytest.fixture
def engine_at(tmp_path, monkeypatch):
    """DOCKER_HOST names a socket path where no engine answers until the test links it to the real one."""
    from clawmark.runtime.engine import shared_client

    socket = tmp_path / "engine" / "docker.sock"
    socket.parent.mkdir()
    monkeypatch.setenv("DOCKER_HOST", f"unix://{socket}")
    shared_client.cache_clear()
    yield socket
    shared_client.cache_clear()


@pytest.fixture
def one_cell(tmp_path):
    from flows.limits import ensure_limits

    spec = SweepSpec.model_validate(fixture_spec("cellrun", ["nop"], ["scripted/demo"], seeds=[0, 1]))
    store = ResultStore(tmp_path / "results")
    ensure_limits(spec.models, 1)  # what the coordinator does before it submits
    return spec, store, plan_sweep(spec, store).cells[1]


def _run(spec, store, chosen, **extra):
    from flows.cell import cell

    return cell(spec=spec.model_dump(mode="json"), cell_key=chosen.cell_key, results=store.location,
                coordinates=coordinates(chosen), return_state=True, **extra)


def _leases(store, sweep_id):
    return list(Path(store.root).glob(f"sweeps/{sweep_id}/running/*.json"))


def test_a_cell_run_waits_for_its_engine_then_runs_its_cell(prefect_harness, docker_client, engine_at, one_cell):
    spec, store, chosen = one_cell
    back = {}

    def engine_returns() -> None:
        time.sleep(5)
        back["at"] = time.time()
        os.symlink(REAL_SOCKET, engine_at)

    threading.Thread(target=engine_returns, daemon=True).start()
    state = _run(spec, store, chosen)
    assert state.is_completed(), state.message
    outcome = state.result()
    assert (outcome["outcome"], outcome["cell_key"], outcome["status"]) == ("ran", chosen.cell_key, "empty_patch")
    assert store.completed_cells(spec.sweep_id) == {chosen.cell_key}  # its cell, no other
    assert store.read_row(spec.sweep_id, chosen.cell_key).started_at.timestamp() >= back["at"]
    assert _leases(store, spec.sweep_id) == []


def test_a_cell_run_whose_engine_stays_down_ends_typed_without_a_row(prefect_harness, engine_at, one_cell,
                                                                       monkeypatch):
    from clawmark.sweeps import engine_gate

    monkeypatch.setattr(engine_gate, "ENGINE_WAIT_S", 3.0)
    spec, store, chosen = one_cell
    state = _run(spec, store, chosen)
    assert (state.type.value, state.name) == ("FAILED", "EngineStayedDown")
    assert f"after 3 s on this worker: cell {chosen.cell_key} not run (no row)" in state.message
    assert store.completed_cells(spec.sweep_id) == set() and _leases(store, spec.sweep_id) == []


def test_a_cell_run_on_a_full_results_disk_ends_typed_without_a_row(prefect_harness, one_cell, tmp_path):
    spec, _, chosen = one_cell
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)], check=True)
    try:
        store = ResultStore(disk / "results")
        store.pin_config(spec.sweep_id, {"protocol": "pinned before the disk filled"})
        subprocess.run(["dd", "if=/dev/zero", f"of={disk / 'filler'}", "bs=64k"], capture_output=True)
        state = _run(spec, store, chosen)
        assert (state.type.value, state.name) == ("FAILED", "ResultsDiskFull")
        assert state.message == f"results disk full under {store.root}: cell {chosen.cell_key} not run (no row)"
        assert store.completed_cells(spec.sweep_id) == set() and _leases(store, spec.sweep_id) == []
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_late_resubmission_of_a_forced_cell_does_not_run_it_again(prefect_harness, docker_client, one_cell):
    spec, store, chosen = one_cell
    first = _run(spec, store, chosen)
    old = store.read_row(spec.sweep_id, chosen.cell_key)
    forced = _run(spec, store, chosen, replaces=old.attempt_id)  # --force: run the committed cell again
    new = store.read_row(spec.sweep_id, chosen.cell_key)
    late = _run(spec, store, chosen, replaces=old.attempt_id)  # the same run resubmitted after its commit
    assert (first.result()["outcome"], forced.result()["outcome"]) == ("ran", "ran")
    assert new.attempt_id != old.attempt_id
    assert late.result() == {"cell_key": chosen.cell_key, "outcome": "already committed"}
    assert store.read_row(spec.sweep_id, chosen.cell_key).attempt_id == new.attempt_id
