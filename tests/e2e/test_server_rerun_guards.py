"""rerun-failed coordinates like the sweep flow: a sweep it cannot find, a changed protocol and a
live lease are each refused before any cell runs (and before anything is pinned or cleared)."""

from __future__ import annotations

import json
import time

import pyarrow.fs as pafs
import pytest
import yaml

from clawmark.results import ResultStore
from clawmark.results.errors import ConfigMismatch
from clawmark.results.lease import LeaseHeld
from clawmark.settings import TASKS_CATALOG
from clawmark.sweeps import load_spec
from clawmark.sweeps.plan import pin_protocol

NIGHT = "guard-20261201"


@pytest.fixture
def night(tmp_path):
    """A spec file and a store holding one night of it (its protocol pinned, a row folder made)."""
    spec_file = tmp_path / "guard.yaml"
    spec_file.write_text(yaml.safe_dump({
        "sweep_id": "guard", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
        "tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": ["nop"], "models": ["scripted/demo"]}))
    store = ResultStore(tmp_path / "results")
    pin_protocol(load_spec(spec_file).model_copy(update={"sweep_id": NIGHT}), store)
    (tmp_path / "results" / "rows" / NIGHT).mkdir(parents=True)
    return spec_file, store


def test_an_unknown_sweep_is_refused_and_not_pinned(prefect_harness, night):
    from flows.rerun_failed import rerun_failed

    spec_file, store = night
    with pytest.raises(LookupError, match=rf"sweep 'guard-2026120' has no rows to rerun \(sweeps here: {NIGHT}\)"):
        rerun_failed(sweep_id="guard-2026120", spec_file=str(spec_file), results_dir=store.root)
    assert store.fs.get_file_info(store.sweep_config_path("guard-2026120")).type == pafs.FileType.NotFound


def test_a_changed_protocol_is_refused(prefect_harness, night, tmp_path):
    from flows.rerun_failed import rerun_failed

    spec_file, store = night
    changed = tmp_path / "changed.yaml"
    changed.write_text(yaml.safe_dump({**yaml.safe_load(spec_file.read_text()), "attempt": {"eval_timeout_s": 600}}))
    with pytest.raises(ConfigMismatch, match=r"eval_timeout_s: 1800.0 → 600.0"):
        rerun_failed(sweep_id=NIGHT, spec_file=str(changed), results_dir=store.root)


def test_a_live_lease_is_refused(prefect_harness, night):
    from flows.rerun_failed import rerun_failed

    spec_file, store = night
    lease = {"token": "other", "host": "another-host", "pid": 1, "started": time.time(), "heartbeat": time.time()}
    store.publish(f"{store.root}/sweeps/{NIGHT}/lease.json", json.dumps(lease).encode())
    with pytest.raises(LeaseHeld, match="being run by pid 1 on another-host"):
        rerun_failed(sweep_id=NIGHT, spec_file=str(spec_file), results_dir=store.root)
