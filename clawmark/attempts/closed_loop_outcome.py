"""Typed outcome of one closed-loop attempt, before it becomes an AttemptRow.

Errors (infra, rate limit, pre_exec, our own bugs) carry a NaN score even when earlier turns
were scored: the attempt as a whole measured nothing fair. The per-turn scores stay in
``turn_scores`` and in the cycle folders."""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from clawmark.results.status import ErrorKind, Status, is_error


class LoopOutcome(BaseModel):
    model_config = ConfigDict(ser_json_inf_nan="constants")

    status: Status
    stop_reason: str = Field("", description="Which rule of the stop order ended the loop.")
    score: float = math.nan
    threshold: float = math.nan
    turns: int = 0
    followups_used: int = 0
    best_turn: int | None = None
    turn_scores: list[float] = Field(default_factory=list)
    checks_passed: int | None = None
    checks_total: int | None = None
    leak_flags: list[str] = Field(default_factory=list)
    followup_leak_blocked: int = 0
    error_kind: ErrorKind | None = None
    error_message: str | None = None
    failure_reason: str | None = None
    image_id: str | None = None

    @classmethod
    def infra(cls, exc: BaseException, phase: str, status: Status = Status.INFRA_ERROR,
              **fields: Any) -> LoopOutcome:
        return cls(status=status, error_kind=ErrorKind.INFRA, stop_reason=f"{phase}_error",
                   failure_reason=type(exc).__name__, error_message=f"{phase}: {type(exc).__name__}: {exc}",
                   **fields)

    @classmethod
    def harness(cls, exc: BaseException, phase: str) -> LoopOutcome:
        return cls(status=Status.HARNESS_ERROR, error_kind=ErrorKind.HARNESS, stop_reason="harness_error",
                   failure_reason="harness_bug", error_message=f"{phase}: {type(exc).__name__}: {exc}")

    def row_fields(self) -> dict[str, Any]:
        error = is_error(self.status)
        return {
            "status": self.status,
            "score": math.nan if error else self.score,
            "threshold": self.threshold,
            "turns": self.turns,
            "followups_used": self.followups_used,
            "best_turn": None if error else self.best_turn,
            "turn_scores": json.dumps(self.turn_scores),  # NaN is written as NaN (json allows it)
            "checks_passed": self.checks_passed,
            "checks_total": self.checks_total,
            "leak_flags": json.dumps(self.leak_flags, ensure_ascii=False),
            "followup_leak_blocked": self.followup_leak_blocked,
            "error_kind": self.error_kind,
            "error_message": self.error_message,
            "failure_reason": self.failure_reason,
            "image_id": self.image_id,
        }
