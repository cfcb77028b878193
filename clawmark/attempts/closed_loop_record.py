"""What one cycle established, in the judge's terms (`clawmark.judge.outcome.Cycle`: gate,
decision, error, feedback, checks, leak flags), plus what only the attempt knows (error text,
a short failure reason); and the attempt's outcome from the judge's stop order and resolution.
The stop order itself lives in one place: `clawmark.judge.outcome`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from clawmark.attempts.watchdog import EXIT_STATUS
from clawmark.catalog.task import ClosedLoopTask
from clawmark.judge.outcome import Cycle, TurnGate, completion_gate, next_action, resolve_outcome
from clawmark.results.outcome import ClosedLoopOutcome
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


def resolve(records: list[CycleRecord], task: ClosedLoopTask) -> ClosedLoopOutcome:
    """The judge's outcome, with what only the attempt knows: which stop ended it and the error text."""
    last = records[-1]
    out = resolve_outcome([r.cycle for r in records], task, stop=last.stop, failure_reason=last.failure_reason)
    error = last.cycle.error is not None and out.status is last.cycle.error
    return out.model_copy(update={"stop_reason": str(last.stop or ""),
                                  "error_message": last.error_message if error else None})
