"""Leaks never reach the executor: a scripted user simulator pastes a rubric line into its
follow-up; the executor's model never receives it (read as the scripted model behind the real
gateway received the executor's requests, and in the turn's prompt.txt), and the row says what
happened. Both paths: the redacted retry is clean and sent; the retry leaks too and the neutral
continue message is sent. Real containers, real claw, real gateway, scripted models."""

from __future__ import annotations

import json

import pytest

from clawmark.catalog import load_task
from clawmark.judge.rewriter import NEUTRAL_CONTINUE
from clawmark.results import Status
from tests.support.closed_loop_fixtures import (  # noqa: F401
    attempt,
    cassettes,
    copied_task,
    cycle_file,
    cycle_json,
    decision,
    gateway,
    sim_reply,
    store,
)
from tests.unit.judge.test_judge_fence import provider  # noqa: F401

pytestmark = pytest.mark.docker
QUOTE = "Continue when the file is missing or a value is wrong; fail only when the agent refuses."  # eval_rule.md §7
LEAKED_WORDS = "fail only when the agent refuses"
CLEAN = "I still don't see the summary file, could you save it?"


def run(tmp_path, store, gateway, cassettes, name: str, simulator_steps: list[dict]):  # noqa: F811
    executor = cassettes(f"exec-{name}", [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo '{}' > results/summary.json"}}]},
        {"content": "Saved."},
        {"content": "Noted."},
    ])
    supervisor = cassettes(f"sup-{name}", [
        {"match": "EXECUTOR TURN 1 OF 3", "content": decision("continue", "incomplete", 0.2, True)},
        {"match": "EXECUTOR TURN 2 OF 3", "content": decision("fail", "complete_but_failed", 0.2)},
    ])
    simulator = cassettes(f"sim-{name}", simulator_steps)
    row = attempt(load_task(copied_task(tmp_path)), executor, store, gateway, supervisor_model=supervisor,
                  simulator_model=simulator)
    return row, executor.split("/", 1)[1]


def executor_inputs(provider, model: str) -> list[str]:
    """Every user message the executor's model received, in order of the requests."""
    return [json.dumps(m["content"], ensure_ascii=False) for r in provider.requests(model)
            for m in r["messages"] if m["role"] == "user"]


def test_a_leaking_follow_up_is_redacted_and_the_clean_retry_is_sent(tmp_path, store, gateway, cassettes,  # noqa: F811
                                                                     provider):  # noqa: F811
    row, executor = run(tmp_path, store, gateway, cassettes, "retry", [
        {"match": "SIMULATOR LEAK RETRY", "content": sim_reply(CLEAN)}, {"content": sim_reply(QUOTE)}])
    assert (row.status, row.turns, row.followup_leak_blocked) == (Status.FAIL, 2, 1)
    flags = json.loads(row.leak_flags)
    assert any(f.startswith("rubric_ngram:") for f in flags), flags
    assert flags[-1] == "followup_blocked: turn 1 draft redacted, the retry was clean and sent"
    assert cycle_file(row, 1, "prompt.txt").read_text() == CLEAN == cycle_file(row, 0, "feedback.txt").read_text()
    said = executor_inputs(provider, executor)
    assert any(CLEAN in m for m in said) and not any(LEAKED_WORDS in m for m in said)
    saved = cycle_json(row, 0, "simulator.json")
    assert saved["sent"] == "simulator_retry" and saved["blocked_drafts"][0]["redacted"].startswith("[redacted]")


def test_a_retry_that_still_leaks_sends_the_neutral_continue_message(tmp_path, store, gateway, cassettes,  # noqa: F811
                                                                     provider):  # noqa: F811
    row, executor = run(tmp_path, store, gateway, cassettes, "stubborn", [{"content": sim_reply(QUOTE)}])
    assert (row.status, row.turns, row.followup_leak_blocked) == (Status.FAIL, 2, 2)
    flags = json.loads(row.leak_flags)
    assert sum(f.startswith("rubric_ngram:") for f in flags) == 2 and json.loads(
        cycle_file(row, 0, "leak.json").read_text()) == flags
    assert flags[-1] == "followup_blocked: turn 1 retry still leaked, the neutral continue message was sent"
    assert cycle_file(row, 1, "prompt.txt").read_text() == NEUTRAL_CONTINUE["en"]
    said = executor_inputs(provider, executor)
    assert any(NEUTRAL_CONTINUE["en"] in m for m in said) and not any(LEAKED_WORDS in m for m in said)
    assert len(provider.requests("sim-stubborn")) == 2  # asked once more, then given up on
