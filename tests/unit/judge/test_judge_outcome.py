"""Completion gate, stop order and the outcome, with the upstream defects fixed."""

from __future__ import annotations

import math

import pytest

from clawmark.claws.base import TurnResult
from clawmark.gateway.errors import BudgetExceeded, RateLimited, UpstreamUnavailable
from clawmark.judge.checks import CheckResult
from clawmark.judge.decision import Decision
from clawmark.judge.outcome import (Cycle, TurnGate, completion_gate, error_status, next_action, resolve_outcome,
                                    turn_error_status)
from clawmark.judge.supervisor import SupervisorFailed
from clawmark.results.status import ErrorKind, Status
from tests.support.judge_tasks import write_task

DONE = TurnGate(complete=True, reason="stopped")
CUT = TurnGate(complete=False, reason="timeout")


def decided(verdict: str, score: float, recoverable: bool = True, state: str = "incomplete") -> Decision:
    return Decision(verdict=verdict, attempt_state=state, recoverable=recoverable, score=score, confidence="high",
                    rationale="r")


def cycle(turn: int, verdict: str | None, score: float = 0.0, **kw) -> Cycle:
    kw.setdefault("gate", DONE)
    recoverable = kw.pop("recoverable", True)
    return Cycle(turn=turn, decision=decided(verdict, score, recoverable) if verdict else None,
                 feedback=kw.pop("feedback", "please fix it"), **kw)


@pytest.mark.parametrize("turn, kw, reason", [
    (TurnResult(success=True), {}, "stopped"),
    (TurnResult(success=True), {"pending_tool_call": True}, "pending_tool_call"),
    (TurnResult(success=False, finish_reason="limit"), {}, "length"),
    (TurnResult(success=False, timeout=True, finish_reason="timeout"), {}, "timeout"),
    (TurnResult(success=True), {"global_timeout": True}, "global_timeout"),
    (TurnResult(success=False, finish_reason="error", error="boom"), {}, "error"),
    (TurnResult(success=False), {}, "error"),
])
def test_completion_gate(turn, kw, reason):
    gate = completion_gate(turn, **kw)
    assert (gate.complete, gate.reason) == (reason == "stopped", reason)


def test_world_errors_of_a_turn_and_of_judging():
    assert turn_error_status(TurnResult(success=False, error_kind="rate_limited")) is Status.RATE_LIMIT
    assert turn_error_status(TurnResult(success=False, error_kind="context_window_exceeded")) is None
    assert error_status(RateLimited("429")) is Status.RATE_LIMIT
    assert error_status(BudgetExceeded("cap")) is Status.BUDGET_EXHAUSTED
    assert error_status(UpstreamUnavailable("down")) is Status.INFRA_ERROR
    assert error_status(SupervisorFailed("garbage twice", ["x", "y"])) is Status.INFRA_ERROR
    assert error_status(KeyError("our bug")) is Status.HARNESS_ERROR


def test_stop_order():
    assert next_action(cycle(1, "continue", 0.4), followups_left=2) is None
    assert next_action(cycle(1, "pass", 0.95), followups_left=2) is Status.PASS
    assert next_action(cycle(1, "continue", 0.4, error=Status.RATE_LIMIT), followups_left=2) is Status.RATE_LIMIT
    assert next_action(cycle(1, "fail", 0.1, recoverable=False), followups_left=2) is Status.FAIL
    assert next_action(cycle(3, "continue", 0.4), followups_left=0) is Status.BUDGET_EXHAUSTED
    assert next_action(cycle(3, "fail", 0.4), followups_left=0) is Status.FAIL
    assert next_action(cycle(1, "continue", 0.4, feedback=" "), followups_left=2) is Status.FAIL
    assert next_action(cycle(1, "continue", 0.4, time_left=False), followups_left=2) is Status.GLOBAL_TIMEOUT
    assert next_action(cycle(1, None, error=Status.INFRA_ERROR), followups_left=2) is Status.INFRA_ERROR


def test_gate_comes_first_but_a_pass_on_an_incomplete_turn_is_not_lost():
    assert next_action(cycle(1, "continue", 0.4, gate=CUT), followups_left=2) is Status.EXECUTOR_INCOMPLETE
    assert next_action(cycle(1, "pass", 0.95, gate=CUT), followups_left=2) is Status.PASS  # defect 1
    ran_out = TurnGate(complete=False, reason="global_timeout")
    assert next_action(cycle(2, "continue", 0.4, gate=ran_out), followups_left=1) is Status.GLOBAL_TIMEOUT
    cut_by_world = cycle(1, None, gate=CUT, error=Status.RATE_LIMIT)
    assert next_action(cut_by_world, followups_left=2) is Status.RATE_LIMIT


def test_outcome_best_score_and_turn(tmp_path):
    task = write_task(tmp_path)  # threshold 0.9, two follow-ups
    cycles = [cycle(1, "continue", 0.4), cycle(2, "continue", 0.92), cycle(3, "continue", 0.7)]
    outcome = resolve_outcome(cycles, task)
    assert (outcome.status, outcome.passed, outcome.score, outcome.best_turn) == (
        Status.BUDGET_EXHAUSTED, True, 0.92, 2)
    assert (outcome.turn_scores, outcome.turns, outcome.error_kind) == ([0.4, 0.92, 0.7], 3, ErrorKind.BUDGET)
    assert (outcome.checks_passed, outcome.checks_total) == (None, None)
    cycles[1].checks = [CheckResult(id="a", passed=True), CheckResult(id="b", passed=False)]
    cycles[2].leak_flags = ["score_number: '0.7'"]
    outcome = resolve_outcome(cycles, task)
    assert (outcome.checks_passed, outcome.checks_total, outcome.leak_flags) == (1, 2, ["score_number: '0.7'"])


def test_pass_on_a_cut_turn_counts_and_a_pass_under_threshold_is_a_fail(tmp_path):
    task = write_task(tmp_path)
    kept = resolve_outcome([cycle(1, "continue", 0.3), cycle(2, "pass", 0.95, gate=CUT)], task)
    assert (kept.status, kept.passed, kept.best_turn) == (Status.PASS, True, 2)
    low = resolve_outcome([cycle(1, "pass", 0.6)], task)  # defect 2: no "pass" with passed=False
    assert (low.status, low.passed, low.failure_reason) == (Status.FAIL, False, "passed at 0.6, under the threshold 0.9")


def test_errors_are_nan_and_not_counted_incomplete_is_never_passed(tmp_path):
    task = write_task(tmp_path)
    error = resolve_outcome([cycle(1, "continue", 0.5), cycle(2, None, error=Status.INFRA_ERROR,
                                                                error_detail="supervisor gave garbage twice")], task)
    assert (error.status, error.passed, math.isnan(error.score), error.failure_reason) == (
        Status.INFRA_ERROR, None, True, "supervisor gave garbage twice")
    assert error.turn_scores[0] == 0.5 and math.isnan(error.turn_scores[1]) and error.best_turn == 1
    incomplete = resolve_outcome([cycle(1, "continue", 0.95, gate=CUT)], task)
    assert (incomplete.status, incomplete.passed, incomplete.score) == (Status.EXECUTOR_INCOMPLETE, False, 0.95)
    assert incomplete.failure_reason == "turn 1 not complete (timeout)"
    pre = resolve_outcome([], task, stop=Status.PRE_EXEC_FAILED, failure_reason="pre_exec exit 2")
    assert (pre.status, pre.passed, pre.turns, pre.best_turn, pre.error_kind) == (
        Status.PRE_EXEC_FAILED, None, 0, None, ErrorKind.INFRA)


def test_an_attempt_that_would_continue_has_no_outcome_yet(tmp_path):
    with pytest.raises(ValueError, match="asks to continue"):
        resolve_outcome([cycle(1, "continue", 0.4)], write_task(tmp_path))
