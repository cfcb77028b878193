"""Nanobot (the real nanobot-ai package in the task container) through a real two-turn
closed-loop attempt on a scripted model: one session across turns (turn 2's reply is a trigger
that only answers a request already holding turn 1's assistant message), the rewritten
follow-up delivered as the second prompt, both turns in the ledger under `executor`, and the
judge's calls priced and timed in the row beside the executor's."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.judge_cost import judge_usage
from clawmark.catalog import load_task
from clawmark.gateway.ledger import read_ledger
from clawmark.results import Status, to_frame, to_table
from tests.support.closed_loop_fixtures import (  # noqa: F401
    FIXTURES,
    attempt,
    cassettes,
    cycle_file,
    decision,
    gateway,
    sim_reply,
    store,
)

pytestmark = pytest.mark.docker
FOLLOW_UP = "Please write the summary file now."


def test_nanobot_two_turns_in_one_session(store, gateway, cassettes):  # noqa: F811
    executor = cassettes("nb-two", [
        {"content": "I read the task; here is my first answer."},
        {"match": FOLLOW_UP, "turn": 1, "content": "Second turn, same session: done."},
    ])
    supervisor = cassettes("nb-sup", [
        {"match": "EXECUTOR TURN 1 OF 3", "content": decision("continue", "incomplete", 0.1, True)},
        {"match": "EXECUTOR TURN 2 OF 3", "content": decision("fail", "complete_but_failed", 0.1)},
    ])
    simulator = cassettes("nb-sim", [{"content": sim_reply(FOLLOW_UP)}])
    task = load_task(FIXTURES / "closed_loop" / "fx_101_sum")
    row = attempt(task, executor, store, gateway, claw="nanobot", supervisor_model=supervisor,
                  simulator_model=simulator)
    assert (row.status, row.turns, row.followups_used) == (Status.FAIL, 2, 1), row.error_message
    assert cycle_file(row, 1, "prompt.txt").read_text() == FOLLOW_UP
    sessions = "".join(p.read_text(errors="replace") for p in cycle_file(row, 1, "transcript").rglob("*.jsonl"))
    assert "Second turn, same session: done." in sessions and "first answer" in sessions
    executor_calls = [r for r in read_ledger(Path(row.artifacts_dir) / "ledger.jsonl") if r.role == "executor"]
    assert [r.model for r in executor_calls] == ["scripted/nb-two"] * 2 and all(r.status == "ok" for r in executor_calls)
    assert row.usage["executor"].calls == 2
    # the judge (two supervisor calls, one simulator call) is priced and timed beside the executor
    assert (row.usage["supervisor"].calls, row.usage["user_simulator"].calls) == (2, 1)
    judge = judge_usage(to_frame(to_table([row]))).iloc[0]
    assert judge["judge_cost_usd"] > 0 and judge["judge_tokens"] > 0 and judge["judge_wall_s"] > 0
    assert judge["judge_cost_usd"] == pytest.approx(row.usage["supervisor"].cost_usd + row.usage["user_simulator"].cost_usd)
