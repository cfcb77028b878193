"""An attempt's stages as Prefect task runs, for real: a sweep of one patch cell and one closed-loop
cell (scripted models) shows each stage as its own task run under the cell's attempt, in the
design's order, all completed; an infrastructure failure (an image that is not there) is retried
with backoff, and a model failure (the provider answering 401 through the gateway) is not.
"""

from __future__ import annotations

import json
import time

import pytest

from clawmark.results import ResultStore
from clawmark.settings import TASKS_CATALOG
from tests.support.gateway_fakes import FakeUpstream

pytestmark = [pytest.mark.docker, pytest.mark.slow]

INI = "clawmark-fixtures__iniparse-py-1"
FINAL = {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}


def _stage_runs(flow_run_id, cells: int) -> dict[str, list]:
    """{attempt task run name: its stage task runs, oldest first}, once every one has finished
    (task run states reach the API through events: they may lag the flow's return)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    flt = FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id]))
    deadline = time.monotonic() + 120  # liveness only: the runs are already over
    with get_client(sync_client=True) as client:
        while True:
            runs = client.read_task_runs(flow_run_filter=flt, limit=200)
            attempts = {r.id: r.name for r in runs if r.name.startswith("attempt ")}
            children: dict[str, list] = {name: [] for name in attempts.values()}
            for run in runs:
                parents = [p.id for p in run.task_inputs.get("__parents__", [])]
                if parents and parents[0] in attempts:
                    children[attempts[parents[0]]].append(run)
            settled = all(r.state_type and r.state_type.value in FINAL for r in runs)
            if (len(attempts) == cells and settled) or time.monotonic() > deadline:
                return {name: sorted(stages, key=lambda r: r.created) for name, stages in children.items()}
            time.sleep(0.5)


def _by_track(stages: dict[str, list]) -> dict[str, list]:
    return {name.split(" ")[1]: runs for name, runs in stages.items()}


def test_each_stage_is_a_task_run_in_order(docker_client, prefect_harness, tmp_path):
    from flows.sweep import sweep

    spec = {"sweep_id": "stages", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"), "tasks": [INI],
            "claws": ["reference"], "models": ["scripted/cl-{task_id}"],
            "closed_loop": {"tasks": ["zh_201_invoice_sum"]}}
    state = sweep(spec=spec, results_dir=str(tmp_path / "results"), return_state=True)
    assert state.is_completed(), state
    rows = ResultStore(tmp_path / "results").read("stages").set_index("track")
    assert rows.loc["closed_loop", "status"] == "pass" and rows.loc["closed_loop", "turns"] == 2
    stages = _by_track(_stage_runs(state.state_details.flow_run_id, cells=2))
    assert [r.name for r in stages["patch"]] == ["provision", "executor-turn", "extract-patch", "teardown",
                                                 "evaluate", "record"]
    assert [r.name for r in stages["closed_loop"]] == [
        "provision", "inject", "executor-turn[1]", "supervise[1]", "follow-up[1]",
        "executor-turn[2]", "supervise[2]", "teardown", "record"]
    for run in [*stages["patch"], *stages["closed_loop"]]:
        assert run.state_type.value == "COMPLETED" and run.run_count == 1, (run.name, run.state_type)


def _instances(tmp_path) -> str:
    """The bundled iniparse row twice: as it is, and naming an image that is not present (on a
    loopback registry that does not exist, should anything try to pull it)."""
    line = next(ln for ln in (TASKS_CATALOG / "swe" / "instances.jsonl").read_text().splitlines() if INI in ln)
    row = json.loads(line)
    row["repo_bundle"] = str(TASKS_CATALOG / "swe" / row["repo_bundle"])
    gone = {**row, "instance_id": f"{INI}-gone", "image": "127.0.0.1:9/clawmark/no-such-image:missing"}
    path = tmp_path / "instances.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (row, gone)) + "\n")
    return str(path)


def test_infra_failures_are_retried_and_model_failures_are_not(docker_client, prefect_harness, tmp_path,
                                                               monkeypatch):
    from flows.sweep import sweep

    monkeypatch.setenv("CLAWMARK_STAGE_BACKOFF_S", "0.5")  # waits of 0.5 s, 1 s between the tries
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-a-real-key-for-this-test")
    with FakeUpstream(failures=[(401, {})] * 20) as upstream:
        spec = {"sweep_id": "retries", "instances": _instances(tmp_path), "tasks": [INI, f"{INI}-gone"],
                "claws": ["reference"], "models": ["openai/house-model-7b"],
                "attempt": {"model_params": {"api_base": upstream.base_url},
                            "fallback_price": {"input": 2.0, "output": 8.0}}}
        state = sweep(spec=spec, results_dir=str(tmp_path / "results"), return_state=True)
    assert state.is_completed(), state
    rows = ResultStore(tmp_path / "results").read("retries").set_index("task_id")
    stages = {name.split(" ")[2]: runs for name, runs in _stage_runs(state.state_details.flow_run_id, 2).items()}

    gone = {r.name: r for r in stages[f"{INI}-gone"]}
    assert list(gone) == ["provision", "teardown", "record"]  # clean-up runs whatever failed
    assert gone["provision"].state_type.value == "FAILED" and gone["provision"].run_count == 3  # 1 + 2 retries
    assert rows.loc[f"{INI}-gone", "status"] == "infra_error"
    assert "InstanceImageMissing" in rows.loc[f"{INI}-gone", "error_message"]

    refused = {r.name: r for r in stages[INI]}
    assert list(refused) == ["provision", "executor-turn", "teardown", "record"]
    assert refused["executor-turn"].state_type.value == "FAILED" and refused["executor-turn"].run_count == 1
    assert rows.loc[INI, "status"] == "infra_error" and "auth_error" in rows.loc[INI, "error_message"]
    assert all(refused[name].state_type.value == "COMPLETED" for name in ("provision", "teardown", "record"))
    assert len(upstream.requests) >= 1  # the claw's call reached the provider and was refused there


def test_a_retried_provision_does_not_run_pre_exec_again(docker_client, prefect_harness, tmp_path, monkeypatch):
    from flows.sweep import sweep
    from tests.support.closed_loop_fixtures import FIXTURE_TASK, copied_task

    monkeypatch.setenv("CLAWMARK_STAGE_BACKOFF_S", "0.5")
    folder, marks = copied_task(tmp_path), tmp_path / "pre_exec-runs.txt"
    (folder / "prepare.sh").write_text(f"echo ran >> {marks}\n")
    task_file = folder / "task.yaml"
    task_file.write_text(task_file.read_text() + "pre_exec:\n  - prepare.sh\n")
    spec = {"sweep_id": "live-once", "instances": None, "claws": ["reference"], "models": ["scripted/demo"],
            "closed_loop": {"tasks_dir": str(folder.parent), "tasks": [FIXTURE_TASK],
                            "attempt": {"image": "127.0.0.1:9/clawmark/no-such-image:missing"}}}
    state = sweep(spec=spec, results_dir=str(tmp_path / "results"), return_state=True)
    assert state.is_completed(), state
    (stages,) = _stage_runs(state.state_details.flow_run_id, cells=1).values()
    provision = next(r for r in stages if r.name == "provision")
    assert provision.state_type.value == "FAILED" and provision.run_count == 3  # the container never came up
    assert marks.read_text().splitlines() == ["ran"]  # pre_exec ran on the first try only
    (row,) = ResultStore(tmp_path / "results").read("live-once").to_dict("records")
    assert row["status"] == "infra_error" and "ImageMissing" in row["error_message"]
