"""What one cycle established, the stop order that reads it, and the attempt's outcome.

Stop order (closed-loop.md), checked after each judged turn: completion gate failed → pass →
infra / rate-limit error → fail and not recoverable → follow-ups used up → empty feedback →
else continue. Upstream defect 1 fixed: a pass on a turn the gate calls incomplete stays a pass
(the supervisor saw the artifacts; the gate only says the claw did not stop cleanly).
Final score = best supervisor score over the turns; a "pass" under the threshold is a fail.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, Field

from clawmark.attempts.closed_loop_outcome import LoopOutcome
from clawmark.results.status import ErrorKind, Status


class CycleRecord(BaseModel):
    turn: int
    gate_ok: bool = True
    global_cut: bool = False
    exit_status: str = ""
    verdict: str | None = None
    recoverable: bool | None = None
    score: float = math.nan
    checks_passed: int = 0
    checks_total: int = 0
    feedback: str = ""
    flags: list[str] = Field(default_factory=list)
    stop: bool = False
    stop_reason: str = ""
    error_status: Status | None = None
    error_message: str | None = None
    failure_reason: str | None = None

    def note_turn(self, result: Any, *, global_cut: bool) -> None:
        self.exit_status = result.exit_status
        self.gate_ok = bool(result.success and result.finish_reason == "stop" and not result.timeout)
        self.global_cut = bool(global_cut)

    def stopped_by_error(self, phase: str, exc: BaseException, status: Status = Status.INFRA_ERROR) -> CycleRecord:
        self.stop, self.stop_reason, self.error_status = True, f"{phase}_error", status
        self.error_message = f"{phase}: {type(exc).__name__}: {exc}"
        self.failure_reason = type(exc).__name__
        return self

    def stopped_by_provider(self, status: Status, message: str) -> CycleRecord:
        self.stop, self.stop_reason, self.error_status = True, "provider_error", status
        self.error_message, self.failure_reason = message, "provider"
        return self

    def apply_stop_order(self, turns_left: int) -> None:
        """After the decision (and, on continue, the rewritten feedback): stop or go on."""
        rules = [(not self.gate_ok, "gate_failed"), (self.verdict == "pass", "pass"),
                 (self.verdict == "fail" and not self.recoverable, "fail"),
                 (self.verdict != "pass" and turns_left <= 0, "followups_used_up"),
                 (self.verdict == "continue" and not self.feedback.strip(), "empty_feedback"),
                 (self.verdict == "fail", "fail")]
        reason = next((why for hit, why in rules if hit), "")
        self.stop, self.stop_reason = bool(reason), reason


def resolve(records: list[CycleRecord], task: Any, max_turns: int) -> LoopOutcome:
    threshold = float(task.spec.success_threshold)
    scores = [r.score for r in records]
    best = _best_turn(scores)
    last = records[-1]
    status = _status(last, records, best, scores, threshold)
    scored = records[best] if best is not None else last
    common = dict(threshold=threshold, turns=len(records), followups_used=max(0, len(records) - 1),
                  turn_scores=scores, checks_passed=scored.checks_passed, checks_total=scored.checks_total,
                  leak_flags=[f for r in records for f in r.flags], stop_reason=last.stop_reason)
    if last.error_status is not None:
        return LoopOutcome(status=last.error_status, error_kind=ErrorKind.INFRA, error_message=last.error_message,
                           failure_reason=last.failure_reason, **common)
    score = scores[best] if best is not None else math.nan
    return LoopOutcome(status=status, score=score, best_turn=best, failure_reason=_reason(status, last), **common)


def _best_turn(scores: list[float]) -> int | None:
    valid = [(s, -i) for i, s in enumerate(scores) if not math.isnan(s)]
    return -max(valid)[1] if valid else None


def _status(last: CycleRecord, records: list[CycleRecord], best: int | None, scores: list[float],
            threshold: float) -> Status:
    reached = best is not None and scores[best] >= threshold
    if last.stop_reason == "global_timeout" or last.global_cut:
        return Status.GLOBAL_TIMEOUT
    if any(r.verdict == "pass" for r in records) and reached:
        return Status.PASS
    if last.stop_reason == "gate_failed":
        return Status.EXECUTOR_INCOMPLETE
    if last.stop_reason == "followups_used_up":
        return Status.BUDGET_EXHAUSTED
    return Status.FAIL


def _reason(status: Status, last: CycleRecord) -> str | None:
    if status is Status.PASS:
        return None
    return last.stop_reason or None
