"""Completion gate, stop order and the final outcome of a closed-loop attempt.

Stop order after each executor turn (closed-loop.md), with the upstream defects fixed:
1. gate failed (the claw did not stop normally): the world's error if one cut the turn;
   else pass if the supervisor passed the turn (defect 1: the pass is not lost); else
   global_timeout when the attempt budget cut it, executor_incomplete otherwise;
2. pass;  3. infra / rate-limit error;  4. fail and not recoverable;
5. follow-ups used up (fail if the verdict is fail, else budget_exhausted);
6. empty feedback (fail: nothing to send);  7. no executor time left (global_timeout);
8. else continue (None).
Outcome: score = best final score over the turns (NaN when none or an error); `passed` =
score ≥ threshold and the status is neither an error (then None) nor executor_incomplete —
the boolean every count uses. Defect 2: a status `pass` whose score misses the threshold
becomes `fail`, so no row says pass with passed false (passed may be true on a later fail or
budget_exhausted: an earlier turn reached the threshold). The outcome is the row's
(clawmark.results.outcome.ClosedLoopOutcome), its best turn counted from 1.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, Field

from clawmark.catalog.task import ClosedLoopTask
from clawmark.claws.base import TurnResult
from clawmark.gateway.errors import BudgetExceeded, ModelError, RateLimited
from clawmark.judge.checks import CheckResult
from clawmark.judge.decision import Decision
from clawmark.judge.simulator import SimulatorFailed
from clawmark.judge.supervisor import SupervisorFailed
from clawmark.runtime.errors import RuntimeFailure
from clawmark.results.outcome import ClosedLoopOutcome
from clawmark.results.status import DEFAULT_ERROR_KIND, Status, is_error

GateReason = Literal["stopped", "pending_tool_call", "length", "timeout", "global_timeout", "error", "empty"]
_GATE_REASON: dict[str, GateReason] = {"timeout": "timeout", "limit": "length", "error": "error", "empty": "empty"}
_WORLD_KINDS = {"rate_limited": Status.RATE_LIMIT, "upstream_unavailable": Status.INFRA_ERROR,
                "auth_error": Status.INFRA_ERROR, "abandoned": Status.INFRA_ERROR,
                "budget_exceeded": Status.BUDGET_EXHAUSTED}


class TurnGate(BaseModel):
    complete: bool
    reason: GateReason


class Cycle(BaseModel):
    """One executor turn and what the judge made of it."""

    turn: int = Field(ge=1)
    gate: TurnGate
    decision: Decision | None = Field(None, description="Normalised, final score; None: no decision.")
    error: Status | None = Field(None, description="What the world caused in this cycle (rate_limit, infra_error...).")
    error_detail: str = ""
    feedback: str = Field("", description="The rewritten next executor message.")
    time_left: bool = Field(True, description="Executor budget remains for another turn.")
    checks: list[CheckResult] = Field(default_factory=list)
    leak_flags: list[str] = Field(default_factory=list)
    leak_blocked: int = Field(0, ge=0, description="Follow-up drafts the leak audit stopped (never sent).")


def completion_gate(turn: TurnResult, *, pending_tool_call: bool = False, global_timeout: bool = False) -> TurnGate:
    """Complete when the claw stopped normally: no pending tool call, not cut by length or time."""
    if global_timeout:
        return TurnGate(complete=False, reason="global_timeout")
    if turn.timeout:
        return TurnGate(complete=False, reason="timeout")
    if turn.finish_reason != "stop" or turn.error or not turn.success:
        return TurnGate(complete=False, reason=_GATE_REASON.get(turn.finish_reason, "error"))
    if pending_tool_call:
        return TurnGate(complete=False, reason="pending_tool_call")
    return TurnGate(complete=True, reason="stopped")


def turn_error_status(turn: TurnResult) -> Status | None:
    """The error status when the world (not the claw) ended the turn, else None."""
    return _WORLD_KINDS.get(turn.error_kind or "")


def error_status(exc: BaseException) -> Status:
    """Status of an exception raised while judging (SupervisorFailed, SimulatorFailed, engine, gateway)."""
    if isinstance(exc, RateLimited):
        return Status.RATE_LIMIT
    if isinstance(exc, BudgetExceeded):
        return Status.BUDGET_EXHAUSTED
    world = (ModelError, RuntimeFailure, SupervisorFailed, SimulatorFailed)
    return Status.INFRA_ERROR if isinstance(exc, world) else Status.HARNESS_ERROR


def next_action(cycle: Cycle, *, followups_left: int) -> Status | None:
    """The status the attempt stops with after `cycle`, or None to send cycle.feedback."""
    verdict = cycle.decision.verdict if cycle.decision else None
    if not cycle.gate.complete:
        if cycle.error:
            return cycle.error
        if verdict == "pass":
            return Status.PASS
        return Status.GLOBAL_TIMEOUT if cycle.gate.reason == "global_timeout" else Status.EXECUTOR_INCOMPLETE
    if verdict == "pass":
        return Status.PASS
    if cycle.error or cycle.decision is None:
        return cycle.error or Status.HARNESS_ERROR
    return _after_verdict(cycle, cycle.decision, followups_left)


def _after_verdict(cycle: Cycle, decision: Decision, followups_left: int) -> Status | None:
    if decision.verdict == "fail" and not decision.recoverable:
        return Status.FAIL
    if followups_left <= 0:
        return Status.FAIL if decision.verdict == "fail" else Status.BUDGET_EXHAUSTED
    if not cycle.feedback.strip():
        return Status.FAIL
    return None if cycle.time_left else Status.GLOBAL_TIMEOUT


def resolve_outcome(cycles: list[Cycle], task: ClosedLoopTask, *, stop: Status | None = None,
                    failure_reason: str | None = None) -> ClosedLoopOutcome:
    """The attempt's outcome; `stop` overrides the stop order (e.g. pre_exec_failed before any turn)."""
    followups_left = task.spec.codex.max_user_followups - (len(cycles) - 1)
    status = stop or (next_action(cycles[-1], followups_left=followups_left) if cycles else Status.HARNESS_ERROR)
    if status is None:
        raise ValueError(f"turn {cycles[-1].turn} of {task.task_id} asks to continue: the attempt has not stopped")
    scores = [c.decision.score if c.decision else math.nan for c in cycles]
    best_turn = _best_turn(scores)
    best = scores[best_turn - 1] if best_turn else math.nan
    threshold = task.spec.success_threshold
    if status is Status.PASS and not best >= threshold:
        status, failure_reason = Status.FAIL, failure_reason or f"passed at {best:g}, under the threshold {threshold:g}"
    passed = None if is_error(status) else (status is not Status.EXECUTOR_INCOMPLETE and best >= threshold)
    judged = cycles[best_turn - 1] if best_turn else (cycles[-1] if cycles else None)
    return ClosedLoopOutcome(
        status=status, error_kind=DEFAULT_ERROR_KIND[status], passed=passed,
        score=math.nan if is_error(status) else best, threshold=float(threshold), best_turn=best_turn,
        turn_scores=scores, turns=len(cycles), followups_used=max(0, len(cycles) - 1),
        failure_reason=failure_reason or _reason(cycles, status),
        checks_passed=sum(c.passed for c in judged.checks) if judged and judged.checks else None,
        checks_total=len(judged.checks) if judged and judged.checks else None,
        leak_flags=[flag for c in cycles for flag in c.leak_flags],
        followup_leak_blocked=sum(c.leak_blocked for c in cycles))


def _best_turn(scores: list[float]) -> int | None:
    """1-based turn of the best score (the earliest on ties); None when no turn was scored."""
    scored = [(s, -i) for i, s in enumerate(scores) if not math.isnan(s)]
    return -max(scored)[1] + 1 if scored else None


def _reason(cycles: list[Cycle], status: Status) -> str | None:
    if status is Status.PASS or not cycles:
        return None
    last = cycles[-1]
    if last.error_detail:
        return last.error_detail
    return f"turn {last.turn} not complete ({last.gate.reason})" if not last.gate.complete else None
