"""A stage retry injected for real (issue 10.1): in a closed-loop sweep run by Prefect, the
supervise stage of turn 1 fails after the supervisor answered (CLAWMARK_FAILPOINT
`supervisor-judged:1:raise`, an I/O error: an infrastructure failure Prefect retries), or the
follow-up stage after the user simulator answered (`simulator-answered:1:raise`); the rerun gets
that answer replayed by the gateway, so the ledger shows the call billed once and replayed once,
and the row counts the role's cost once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from clawmark.gateway.ledger import read_ledger
from clawmark.results import ResultStore

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TASK = "zh_201_invoice_sum"  # bundled: passes in two turns on its cassettes


def _stage_runs(flow_run_id, stage: str, expected: int) -> dict[str, int]:
    """{stage[n]: how many times Prefect ran it}, once all `expected` of them settled."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    flt = FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id]))
    deadline = time.monotonic() + 120  # liveness only: task run states reach the API through events
    with get_client(sync_client=True) as client:
        while True:
            runs = [r for r in client.read_task_runs(flow_run_filter=flt, limit=200) if r.name.startswith(f"{stage}[")]
            settled = all(r.state_type and r.state_type.value == "COMPLETED" for r in runs)
            if (len(runs) == expected and settled) or time.monotonic() > deadline:
                return {r.name: r.run_count for r in runs}
            time.sleep(0.5)


# failpoint, the stage it fails, its runs (turn 1 judged not passed, one follow-up, turn 2 passes),
# the role whose calls are replayed and what its ledger shows: turn 1, its rerun, then turn 2's
CASES = [("supervisor-judged", "supervise", {"supervise[1]": 2, "supervise[2]": 1}, "supervisor", [False, True, False]),
         ("simulator-answered", "follow-up", {"follow-up[1]": 2}, "user_simulator", [False, True])]


@pytest.mark.parametrize(("point", "stage", "runs", "role", "replayed"), CASES, ids=[c[1] for c in CASES])
def test_a_retried_judging_stage_replays_its_model_call(docker_client, prefect_harness, tmp_path, monkeypatch,
                                                        point, stage, runs, role, replayed):
    from flows.sweep import sweep

    monkeypatch.setenv("CLAWMARK_STAGE_RETRIES", "1")
    monkeypatch.setenv("CLAWMARK_STAGE_BACKOFF_S", "0.05")
    monkeypatch.setenv("CLAWMARK_FAILPOINT", f"{point}:1:raise")
    spec = {"sweep_id": "replay", "instances": None, "claws": ["reference"], "models": ["scripted/cl-{task_id}"],
            "closed_loop": {"tasks": [TASK]}}
    state = sweep(spec=spec, results_dir=str(tmp_path / "results"), return_state=True)
    assert state.is_completed(), state
    assert _stage_runs(state.state_details.flow_run_id, stage, len(runs)) == runs

    (row,) = ResultStore(tmp_path / "results").read("replay").to_dict("records")
    assert (row["status"], row["turns"]) == ("pass", 2), row["error_message"]
    calls = [r for r in read_ledger(Path(row["artifacts_dir"]) / "ledger.jsonl") if r.role == role]
    assert [(r.status, r.replayed) for r in calls] == [("ok", seen) for seen in replayed]
    billed = [r for r in calls if not r.replayed]
    assert all(r.cost_usd > 0 for r in billed)
    assert all(r.cost_usd == 0.0 and r.input_tokens == 0 for r in calls if r.replayed)
    assert row[f"{role}_cost_usd"] == pytest.approx(sum(r.cost_usd for r in billed))
    assert row[f"{role}_calls"] == len(billed)
    assert row[f"{role}_input_tokens"] == sum(r.input_tokens for r in billed)
