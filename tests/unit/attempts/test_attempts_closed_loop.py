"""Pieces of the closed-loop attempt that need no container: which model each role gets, the
visible trajectory read from what a claw leaves behind, and the outcome's row fields (0-based
best turn, NaN for errors, the error text kept)."""

from __future__ import annotations

import json
import math

import pytest

from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig, role_models
from clawmark.attempts.closed_loop_record import CycleRecord, resolve
from clawmark.attempts.closed_loop_transcript import visible_messages
from clawmark.catalog import load_task
from clawmark.catalog.task import RoleOverride
from clawmark.claws import TurnResult
from clawmark.judge.decision import Decision
from clawmark.results import Status
from clawmark.results.transcript import load as load_transcript
from clawmark.settings import PROJECT_ROOT

FIXTURE = PROJECT_ROOT / "tests" / "fixtures" / "closed_loop" / "fx_101_sum"


@pytest.fixture(scope="module")
def task():
    return load_task(FIXTURE)


def test_scripted_executor_brings_its_task_family_of_judges(task):
    models = role_models(task, "scripted/cl-{task_id}", ClosedLoopAttemptConfig())
    assert models == {"executor": "scripted/cl-fx_101_sum", "supervisor": "scripted/sup-fx_101_sum",
                      "user_simulator": "scripted/sim-fx_101_sum"}


def test_real_executor_judges_itself_unless_told(task):
    assert set(role_models(task, "openai/gpt-5", ClosedLoopAttemptConfig()).values()) == {"openai/gpt-5"}
    chosen = role_models(task, "openai/gpt-5", ClosedLoopAttemptConfig(supervisor_model="anthropic/opus"))
    assert (chosen["supervisor"], chosen["user_simulator"]) == ("anthropic/opus", "openai/gpt-5")


def test_task_override_of_the_supervisor_model_applies(task):
    codex = task.spec.codex.model_copy(update={"supervisor": RoleOverride(model="openai/o3")})
    overridden = task.model_copy(update={"spec": task.spec.model_copy(update={"codex": codex})})
    assert role_models(overridden, "openai/gpt-5", ClosedLoopAttemptConfig())["supervisor"] == "openai/o3"
    swept = ClosedLoopAttemptConfig(supervisor_model="anthropic/opus")
    assert role_models(overridden, "openai/gpt-5", swept)["supervisor"] == "anthropic/opus"  # the sweep wins


def test_visible_messages_read_unclaimed_session_files_and_save_the_transcript(tmp_path):
    backup = tmp_path / "transcript"
    backup.mkdir()
    (backup / "a.json").write_text(json.dumps({"messages": [{"role": "system", "content": "sys"},
                                                            {"role": "user", "content": "task"}]}))
    (backup / "b.jsonl").write_text(json.dumps({"role": "assistant", "content": "done"}) + "\nnot json\n")
    (backup / "c.log").write_text("plain claw log")
    (backup / ".session.lock").write_text("")
    found = visible_messages(tmp_path)
    assert [(m.role, m.text) for m in found[:2]] == [("user", "task"), ("assistant", "done")]
    assert found[2].role == "assistant" and "plain claw log" in found[2].text and len(found) == 3
    assert load_transcript(tmp_path / "transcript.json") == found


def _decision(verdict: str, score: float, recoverable: bool = True) -> Decision:
    return Decision(verdict=verdict, attempt_state="incomplete" if verdict == "continue" else "complete_and_passed",
                    recoverable=recoverable, score=score, confidence="high", rationale="r")


def test_outcome_row_fields_use_a_zero_based_best_turn(task):
    done = TurnResult(success=True, finish_reason="stop")
    first = CycleRecord.start(0, done, global_cut=False)
    first.cycle.decision, first.cycle.feedback = _decision("continue", 0.4), "more please"
    assert first.decide(followups_left=2) is None
    second = CycleRecord.start(1, done, global_cut=False)
    second.cycle.decision = _decision("pass", 0.95, recoverable=False)
    assert second.decide(followups_left=1) is Status.PASS
    fields = resolve([first, second], task).row_fields()
    assert (fields["status"], fields["score"], fields["best_turn"], fields["turns"]) == (Status.PASS, 0.95, 1, 2)
    assert json.loads(fields["turn_scores"]) == [0.4, 0.95] and fields["followups_used"] == 1


def test_an_error_cycle_keeps_its_message_and_scores_nan(task):
    record = CycleRecord.start(0, TurnResult(success=True, finish_reason="stop"), global_cut=False)
    record.fail_with(Status.INFRA_ERROR, "supervisor: garbage twice", "supervisor_invalid")
    record.decide(followups_left=2)
    outcome = resolve([record], task)
    fields = outcome.row_fields()
    assert (fields["status"], fields["failure_reason"], fields["best_turn"]) == (
        Status.INFRA_ERROR, "supervisor_invalid", None)
    assert math.isnan(fields["score"]) and fields["error_message"] == "supervisor: garbage twice"
