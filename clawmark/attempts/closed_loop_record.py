"""What one cycle established, in the judge's terms (`clawmark.judge.outcome.Cycle`: gate,
decision, error, feedback, checks, leak flags), plus what only the attempt knows (error text,
a short failure reason); and the attempt's outcome from the judge's stop order and resolution.
The stop order itself lives in one place: `clawmark.judge.outcome`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from clawmark.attempts.closed_loop_outcome import LoopOutcome
from clawmark.attempts.watchdog import EXIT_STATUS
from clawmark.catalog.task import ClosedLoopTask
from clawmark.judge.outcome import Cycle, TurnGate, completion_gate, next_action, resolve_outcome
from clawmark.results.status import Status

HOST_STOPS = frozenset(EXIT_STATUS.values())


class CycleRecord(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    cycle: Any = Field(description="clawmark.judge.outcome.Cycle of this turn.")
    error_message: str | None = None
    failure_reason: str | None = None
    stop: Status | None = None  # the stop order's answer; None = send cycle.feedback

    @classmethod
    def start(cls, turn: int, result: Any | None, *, global_cut: bool) -> CycleRecord:
        if result is None:
            gate = TurnGate(complete=False, reason="error")
        else:
            gate = completion_gate(result, global_timeout=global_cut)
        # A watchdog's or the step limit's stop is the claw's failure (executor_incomplete); the row says which.
        host_stop = result is not None and result.exit_status in HOST_STOPS
        return cls(cycle=Cycle(turn=turn + 1, gate=gate), failure_reason=result.exit_status if host_stop else None)

    def fail_with(self, status: Status, message: str, reason: str) -> CycleRecord:
        self.cycle.error, self.cycle.error_detail = status, reason
        self.error_message, self.failure_reason = message[:1000], reason
        return self

    def decide(self, followups_left: int) -> Status | None:
        self.stop = next_action(self.cycle, followups_left=followups_left)
        return self.stop


def resolve(records: list[CycleRecord], task: ClosedLoopTask) -> LoopOutcome:
    last = records[-1]
    out = resolve_outcome([r.cycle for r in records], task, stop=last.stop, failure_reason=last.failure_reason)
    error = last.cycle.error is not None and out.status is last.cycle.error
    return LoopOutcome(
        status=out.status, error_kind=out.error_kind, stop_reason=str(last.stop or ""),
        score=out.score, threshold=float(task.spec.success_threshold), turns=out.turns,
        followups_used=max(0, out.turns - 1), best_turn=None if out.best_turn is None else out.best_turn - 1,
        turn_scores=out.turn_scores, checks_passed=out.checks_passed, checks_total=out.checks_total,
        leak_flags=out.leak_flags, followup_leak_blocked=out.followup_leak_blocked, failure_reason=out.failure_reason,
        error_message=last.error_message if error else None)
