"""A stage retry injected for real (issue 10.1): in a closed-loop sweep run by Prefect, the
supervise stage of turn 1 fails after the supervisor answered (CLAWMARK_FAILPOINT
`supervisor-judged:1:raise`, an I/O error: an infrastructure failure Prefect retries); its rerun
gets the supervisor's answer replayed by the gateway, so the ledger shows that call billed once
and replayed once, and the row counts the supervisor's cost once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from clawmark.gateway.ledger import read_ledger
from clawmark.results import ResultStore

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TASK = "zh_201_invoice_sum"  # bundled: passes in two turns on its cassettes


def _supervise_runs(flow_run_id) -> dict[str, int]:
    """{supervise[n]: how many times Prefect ran it}, once all of the run's task runs settled."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    flt = FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id]))
    deadline = time.monotonic() + 120  # liveness only: task run states reach the API through events
    with get_client(sync_client=True) as client:
        while True:
            runs = [r for r in client.read_task_runs(flow_run_filter=flt, limit=200) if r.name.startswith("supervise")]
            settled = all(r.state_type and r.state_type.value == "COMPLETED" for r in runs)
            if (len(runs) == 2 and settled) or time.monotonic() > deadline:
                return {r.name: r.run_count for r in runs}
            time.sleep(0.5)


def test_a_retried_supervise_stage_replays_the_supervisors_call(docker_client, prefect_harness, tmp_path,
                                                                monkeypatch):
    from flows.sweep import sweep

    monkeypatch.setenv("CLAWMARK_STAGE_RETRIES", "1")
    monkeypatch.setenv("CLAWMARK_STAGE_BACKOFF_S", "0.05")
    monkeypatch.setenv("CLAWMARK_FAILPOINT", "supervisor-judged:1:raise")
    spec = {"sweep_id": "replay", "instances": None, "claws": ["reference"], "models": ["scripted/cl-{task_id}"],
            "closed_loop": {"tasks": [TASK]}}
    state = sweep(spec=spec, results_dir=str(tmp_path / "results"), return_state=True)
    assert state.is_completed(), state
    assert _supervise_runs(state.state_details.flow_run_id) == {"supervise[1]": 2, "supervise[2]": 1}

    (row,) = ResultStore(tmp_path / "results").read("replay").to_dict("records")
    assert (row["status"], row["turns"]) == ("pass", 2), row["error_message"]
    calls = [r for r in read_ledger(Path(row["artifacts_dir"]) / "ledger.jsonl") if r.role == "supervisor"]
    # turn 1, its rerun, turn 2
    assert [(r.status, r.replayed) for r in calls] == [("ok", False), ("ok", True), ("ok", False)]
    first, replayed, second = calls
    assert first.cost_usd > 0 and replayed.cost_usd == 0.0 and replayed.input_tokens == 0
    assert row["supervisor_cost_usd"] == pytest.approx(first.cost_usd + second.cost_usd)
    assert row["supervisor_calls"] == 2 and row["supervisor_input_tokens"] == first.input_tokens + second.input_tokens
