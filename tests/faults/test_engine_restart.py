"""The Docker engine restarts in the middle of a real sweep. Not the shared engine (other tests
run on it): a private dockerd (tests/faults/private_engine.py) holding only the fixture
instance's images, restarted once the sweep's first row is committed. The cells in flight
become typed infra rows, the sweep goes on once the engine is back, and rerun-failed finishes
them: every cell has exactly one row, and no committed good row is run again."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
import yaml

from clawmark.results import ResultStore
from tests.faults.private_engine import PrivateEngine, image_chain
from tests.support.fault_sweeps import INSTANCE, assert_kept, rows, set_limits, spec

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def private_engine(docker_client, tmp_path_factory):
    from clawmark.catalog import find_instances
    from clawmark.settings import TASKS_CATALOG
    from clawmark.swe.instance_image import instance_image

    (instance,) = find_instances(TASKS_CATALOG / "swe" / "instances.jsonl", [INSTANCE])
    ref = instance_image(instance)  # on the shared engine: built once, reused by every test
    engine = PrivateEngine(tmp_path_factory.mktemp("engine"))
    try:
        engine.start()
        engine.load_images(image_chain(docker_client, ref))
        yield engine
    finally:
        engine.close()


@pytest.fixture
def on_private_engine(private_engine, monkeypatch):
    """This test's clawmark talks to the private engine only (the process-wide client re-made)."""
    from clawmark.runtime.engine import shared_client

    monkeypatch.setenv("DOCKER_HOST", private_engine.host)
    monkeypatch.setenv("CLAWMARK_HOST_FIREWALL", "off")  # no iptables chains for a throw-away engine
    shared_client.cache_clear()
    yield private_engine
    shared_client.cache_clear()


OUTAGE_S = 45.0  # longer than the stage and cell retries (10 s x 2, 15 s): cells in flight must fail
GOOD = {"oracle": "resolved", "nop": "empty_patch"}


def outage_after_first_row(engine: PrivateEngine, rows_dir: Path, window: dict, stop: threading.Event) -> None:
    while not stop.is_set() and not any(rows_dir.glob("*.parquet")):
        time.sleep(0.05)
    if stop.is_set():
        return
    window["down"] = time.time()
    engine.stop()
    time.sleep(OUTAGE_S)
    engine.start()
    window["up"] = time.time()


def test_an_engine_outage_mid_sweep_costs_only_the_cells_it_hit(prefect_harness, on_private_engine, tmp_path):
    from flows.rerun_failed import rerun_failed
    from flows.sweep import sweep

    set_limits(**{"clawmark-docker-local": 2})
    store = ResultStore(tmp_path / "results")
    sweep_file = tmp_path / "restart.yaml"
    sweep_file.write_text(yaml.safe_dump(spec("restart", ["oracle", "nop"], ["scripted/demo"], seeds=[0, 1, 2],
                                              max_parallel=2)))
    window, stop = {}, threading.Event()
    host_bridges = [name for name in os.listdir("/sys/class/net") if name == "docker0"]
    restarter = threading.Thread(target=outage_after_first_row, daemon=True,
                                 args=(on_private_engine, Path(store.root) / "rows" / "restart", window, stop))
    restarter.start()
    try:
        first = sweep(spec_file=str(sweep_file), results_dir=str(store.root))
    finally:
        stop.set()
        restarter.join(180)
    assert "up" in window, "the engine was not restarted during the sweep"
    before = rows(store, "restart")
    assert first["cells"] == 6
    hit = {key for key, row in before.items() if row["status"] != GOOD[row["claw"]]}
    for key in hit:  # each cell the outage hit is an infra row that names the engine
        row = before[key]
        assert (row["status"], row["error_kind"]) == ("infra_error", "infra"), row["error_message"]
        assert any(word in row["error_message"] for word in ("EngineUnavailable", "ConnectionError")), row
    # Only cells in flight when the engine went away (at most max_parallel) lost their run: no
    # cell was started while it was down, and every cell started after it came back is good.
    assert 6 - len(before) + len(hit) <= 2, sorted(r["status"] for r in before.values())
    slack = 2.0  # a cell submitted in the instant the engine went down
    # window["up"] is taken once start() has returned: the engine answered a moment before, and a
    # waiting cell may start in that moment (seen: 20 ms before it).
    answered = window["up"] - 1.0
    assert not [r for r in before.values() if window["down"] + slack < r["started_at"].timestamp() < answered]

    again = sweep(spec_file=str(sweep_file), results_dir=str(store.root))  # cells without a row
    result = rerun_failed(spec_file=str(sweep_file), results_dir=str(store.root))  # the infra rows
    after = rows(store, "restart")
    assert (again["ran"], result["rerun"]) == (6 - len(before), len(hit))
    assert len(after) == 6 and all(row["status"] == GOOD[row["claw"]] for row in after.values())
    assert_kept(before, after, rerun=hit)
    # The shared engine's default bridge survives the private one's restarts (it once did not).
    assert set(host_bridges) <= set(os.listdir("/sys/class/net")), host_bridges


def test_the_kept_client_follows_docker_host_and_outlives_a_restart(private_engine, monkeypatch):
    """clawmark/runtime/engine.shared_client: one client per engine named by DOCKER_HOST as it is
    at the call (no cache cleared here), whose connection is made again after the engine restarts."""
    from clawmark.runtime.engine import engine_answers, shared_client
    from clawmark.runtime.images import image_present, image_ref

    shared_only = image_ref("node")  # on the shared engine (make test's image phase), never loaded into the private one
    assert image_present(shared_only)
    monkeypatch.setenv("DOCKER_HOST", private_engine.host)
    assert not image_present(shared_only) and engine_answers()
    kept, kept_probe = shared_client(), shared_client(10)
    private_engine.stop()
    try:
        assert not engine_answers()
    finally:
        private_engine.start()
    assert engine_answers() and shared_client(10) is kept_probe
    assert not image_present(shared_only) and shared_client() is kept
    monkeypatch.undo()  # DOCKER_HOST as it was: the shared engine's client again
    assert image_present(shared_only) and shared_client() is not kept
