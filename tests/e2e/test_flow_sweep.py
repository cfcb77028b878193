"""The sweep flows for real: Prefect, the Docker engine, the gateway, the oracle and nop claws.

Guards the resume contract: a finished cell is never run twice, a cell without a committed row
is, and rerun-failed picks exactly the cells whose row records an infrastructure failure.
"""

from __future__ import annotations

import pytest
import yaml

from clawmark.results import ResultStore
from clawmark.settings import TASKS_CATALOG

pytestmark = [pytest.mark.docker, pytest.mark.slow]

INSTANCE = "clawmark-fixtures__iniparse-py-1"


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({
        "sweep_id": "e2e", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
        "tasks": [INSTANCE], "claws": ["oracle", "nop"], "models": ["scripted/demo"],
    }))
    return str(path)


def _attempts(store: ResultStore) -> dict[str, str]:
    frame = store.read("e2e")
    return dict(zip(frame["cell_key"], frame["attempt_id"]))


def test_sweep_runs_each_cell_once_and_resumes(docker_client, prefect_harness, spec_file, tmp_path):
    from flows.sweep import sweep

    results = tmp_path / "results"
    first = sweep(spec_file=spec_file, results_dir=str(results))
    store = ResultStore(results)
    frame = store.read("e2e").set_index("claw")
    assert (first["ran"], first["skipped"]) == (2, 0)
    errors = frame["error_message"].to_dict()
    assert frame.loc["oracle", "status"] == "resolved", errors
    assert frame.loc["nop", "status"] == "empty_patch", errors
    assert store.cell_files("e2e") == []  # compacted at the end of the flow

    before = _attempts(store)
    again = sweep(spec_file=spec_file, results_dir=str(results))
    assert (again["ran"], again["skipped"]) == (0, 2)
    assert _attempts(store) == before  # same attempts: nothing ran twice

    wider = tmp_path / "wider.yaml"
    spec = yaml.safe_load(open(spec_file))
    wider.write_text(yaml.safe_dump({**spec, "models": [*spec["models"], "scripted/quick-{task_id}"]}))
    third = sweep(spec_file=str(wider), results_dir=str(results))
    assert (third["ran"], third["skipped"]) == (2, 2)  # only the new model's cells run
    assert len(store.read("e2e")) == 4
    assert {k: v for k, v in _attempts(store).items() if k in before} == before


def test_rerun_failed_reruns_only_infra_failures(docker_client, prefect_harness, spec_file, tmp_path):
    from flows.rerun_failed import rerun_failed
    from flows.sweep import sweep

    results = tmp_path / "results"
    sweep(spec_file=spec_file, results_dir=str(results))
    store = ResultStore(results)
    oracle = store.read("e2e").set_index("claw").loc["oracle"]
    row = store.read_row("e2e", oracle["cell_key"])
    outage = {**row.model_dump(), "status": "infra_error", "passed": None, "resolved": None,
              "resolution": None, "error_kind": None, "error_message": "engine went away"}
    store.write(type(row).model_validate(outage))
    assert store.read("e2e").set_index("claw").loc["oracle", "status"] == "infra_error"

    result = rerun_failed(spec_file=spec_file, results_dir=str(results))
    assert result["rerun"] == 1
    assert store.read("e2e").set_index("claw").loc["oracle", "status"] == "resolved"


def test_nightly_runs_under_a_dated_id_and_compares_with_the_night_before(
        docker_client, prefect_harness, spec_file, tmp_path):
    from flows.nightly import nightly

    results = str(tmp_path / "results")
    first = nightly(spec_file=spec_file, results_dir=results, date="20261129")
    second = nightly(spec_file=spec_file, results_dir=results, date="20261130")
    assert first["sweep_id"] == "e2e-20261129" and first["regressions"] == []
    assert second["baseline"] == "e2e-20261129"
    assert second["regressions"] == []
    assert {s["claw"]: s["pass_at_1"] for s in second["summary"]} == {"oracle": 1.0, "nop": 0.0}


def test_sweep_cost_cap_stops_scheduling(docker_client, prefect_harness, tmp_path):
    from flows.sweep import sweep

    spec = {"sweep_id": "capped", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
            "suite": "swe-smoke", "claws": ["reference"], "models": ["scripted/quick-{task_id}"],
            "max_parallel": 1, "max_cost_usd": 0.001}
    result = sweep(spec=spec, results_dir=str(tmp_path / "results"))
    assert result["cells"] == 4 and result["ran"] == 1
    (only,) = result["summary"]
    assert only["total_cost"] > 0.001
