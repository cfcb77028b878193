"""Claw faults injected into real sweeps (Prefect, Docker, the gateway, the reference claw driven
by fault cassettes): a command that blocks in silence past the host deadline, and a command that
the kernel's OOM killer ends at the container's memory limit. Each is typed in its row, the
bystander cell is untouched, and a second run of the sweep redoes nothing."""

from __future__ import annotations

import json

import pytest

from clawmark.results import ResultStore
from tests.support.fault_sweeps import assert_kept, rows, set_limits, spec

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def _run(sweep_spec: dict, store: ResultStore) -> dict:
    from flows.sweep import sweep

    return sweep(spec=sweep_spec, results_dir=str(store.root))


def test_a_silent_hung_claw_is_stopped_at_the_host_deadline_and_typed_timeout(
        docker_client, prefect_harness, fault_cassettes, tmp_path):
    set_limits(**{"clawmark-docker-local": 2, "clawmark-model-scripted": 2})
    store = ResultStore(tmp_path / "results")
    sweep_spec = spec("hang", ["reference", "nop"], ["scripted/fault-hang-{task_id}"], max_parallel=2,
                      attempt={"budgets": {"seconds": 3}, "deadline_grace_s": 2, "stop_grace_s": 5})
    first = _run(sweep_spec, store)
    before = rows(store, "hang")
    by_claw = {r["claw"]: r for r in before.values()}
    hung = by_claw["reference"]
    assert (first["ran"], len(before)) == (2, 2)
    assert hung["error_kind"] == "timeout", (hung["status"], hung["error_kind"], hung["error_message"])
    assert "host deadline" in hung["error_message"]
    turn = json.loads((store.layout("hang", hung["cell_key"]).logs / "turn-0.json").read_text())
    assert (turn["exit_status"], turn["timeout"]) == ("host_deadline", True)
    assert hung["status"] == "empty_patch"  # what the claw left is still graded: it did nothing
    assert by_claw["nop"]["status"] == "empty_patch" and by_claw["nop"]["error_kind"] == "model"

    again = _run(sweep_spec, store)  # a timeout is measured, not an outage: never redone
    assert (again["ran"], again["skipped"]) == (0, 2)
    assert_kept(before, rows(store, "hang"))


def test_a_command_killed_by_oom_is_the_claws_observation_and_its_patch_is_graded(
        docker_client, prefect_harness, fault_cassettes, tmp_path, monkeypatch):
    """The kernel kills the claw's command at the container's memory limit. The claw sees it as a
    shell would (killed, out of memory) and goes on, as a claw running in the container does; the
    row grades what it left: an OOM its own command caused is never an infra error to rerun."""
    from clawmark.claws.reference import ReferenceClaw

    given = ReferenceClaw.docker_args
    monkeypatch.setattr(ReferenceClaw, "docker_args", lambda self, ctx: {**given(self, ctx), "memory_mb": 192})
    set_limits(**{"clawmark-docker-local": 2, "clawmark-model-scripted": 2})
    store = ResultStore(tmp_path / "results")
    sweep_spec = spec("oom", ["reference", "oracle"], ["scripted/fault-oom-{task_id}"], max_parallel=2)
    first = _run(sweep_spec, store)
    before = rows(store, "oom")
    by_claw = {r["claw"]: r for r in before.values()}
    killed = by_claw["reference"]
    assert (first["ran"], len(before)) == (2, 2)
    assert (killed["status"], killed["error_kind"]) == ("empty_patch", "model"), killed["error_message"]
    transcript = store.layout("oom", killed["cell_key"]).transcript
    seen = "".join(p.read_text(errors="replace") for p in transcript.rglob("*") if p.is_file())
    assert "killed: out of memory" in seen and "192 MB" in seen
    assert killed["executor_calls"] == 2  # it went on to its next step after the kill
    assert by_claw["oracle"]["status"] == "resolved"

    again = _run(sweep_spec, store)
    assert again["ran"] == 0
    assert_kept(before, rows(store, "oom"))
