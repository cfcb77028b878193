"""The typed outcome of one attempt, row-ready: what the judge (closed loop) and the evaluator
(patch) return, and what the attempt turns into its AttemptRow without copying fields.

One vocabulary (clawmark.results.status): `Status`, `ErrorKind`, `Resolution`. Turns count from
1 wherever a person reads them (the outcome, outcome.json, the CLI); the row's `best_turn`
column alone is 0-based (its stored meaning, clawmark.results.row), and `row_fields` is the one
place that translates.

Errors (infra, rate limit, pre_exec, our own bugs) carry a NaN score even when earlier turns
were scored: the attempt as a whole measured nothing fair. The per-turn scores stay in
``turn_scores`` and in the cycle folders."""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from clawmark.results.status import ErrorKind, Resolution, Status, is_error


# The row's `best_turn` column counts turns from 0 (its stored meaning since schema v1); people
# and the outcome count from 1.
ROW_TURN_BASE = 1


def best_turn_of_row(column: int | None) -> int | None:
    """The 1-based best turn a person reads, from a row's 0-based `best_turn` column."""
    return None if column is None else column + ROW_TURN_BASE


class AttemptOutcome(BaseModel):
    """What both tracks' rows take from an outcome; ``status`` is the row's status."""

    model_config = ConfigDict(ser_json_inf_nan="constants")

    status: Status
    error_kind: ErrorKind | None = Field(None, description="None: the row derives it from the status.")
    error_message: str | None = None
    failure_reason: str | None = Field(None, description="Finer than status (clawmark.results.status.FailureReason).")
    image_id: str | None = None

    def row_fields(self) -> dict[str, Any]:
        reason = self.failure_reason
        return {"status": self.status, "error_kind": self.error_kind, "error_message": self.error_message,
                "failure_reason": None if reason is None else str(reason), "image_id": self.image_id}


class PatchOutcome(AttemptOutcome):
    """Who is to blame decides the status: a failure of the infrastructure is an error status
    with NaN score, never an unresolved instance; what the claw and model did (any patch, even
    after a step limit or a model refusal) is graded by the tests."""

    resolution: Resolution | None = None
    turns: int | None = None
    network_policy: str | None = Field(None, description="The evaluator's network, when the patch was evaluated.")

    @classmethod
    def infra(cls, exc: BaseException, phase: str) -> PatchOutcome:
        return cls(status=Status.INFRA_ERROR, error_kind=ErrorKind.INFRA,
                   error_message=f"{phase}: {type(exc).__name__}: {exc}")

    @classmethod
    def harness(cls, exc: BaseException, phase: str) -> PatchOutcome:
        return cls(status=Status.HARNESS_ERROR, error_kind=ErrorKind.HARNESS,
                   error_message=f"{phase}: {type(exc).__name__}: {exc}")

    def row_fields(self) -> dict[str, Any]:
        return {**super().row_fields(), "resolution": self.resolution, "turns": self.turns,
                "network_policy": self.network_policy}


class ClosedLoopOutcome(AttemptOutcome):
    """The judge's resolution of the stop order (clawmark.judge.outcome.resolve_outcome), or the
    error that ended the attempt before it."""

    stop_reason: str = Field("", description="Which rule of the stop order ended the loop.")
    passed: bool | None = Field(None, description="The judge's verdict; the row derives the same from its fields.")
    score: float = Field(math.nan, description="Best final score; NaN when unscored or an error.")
    threshold: float = math.nan
    turns: int = 0
    followups_used: int = 0
    best_turn: int | None = Field(None, ge=1, description="1-based turn of the best score (the earliest on ties).")
    turn_scores: list[float] = Field(default_factory=list)
    checks_passed: int | None = Field(None, description="Of the best turn (the last one when unscored).")
    checks_total: int | None = None
    leak_flags: list[str] = Field(default_factory=list)
    followup_leak_blocked: int = Field(0, description="Follow-up drafts the leak audit stopped, over all turns.")

    @classmethod
    def infra(cls, exc: BaseException, phase: str, status: Status = Status.INFRA_ERROR,
              **fields: Any) -> ClosedLoopOutcome:
        return cls(status=status, error_kind=ErrorKind.INFRA, stop_reason=f"{phase}_error",
                   failure_reason=type(exc).__name__, error_message=f"{phase}: {type(exc).__name__}: {exc}",
                   **fields)

    @classmethod
    def harness(cls, exc: BaseException, phase: str) -> ClosedLoopOutcome:
        return cls(status=Status.HARNESS_ERROR, error_kind=ErrorKind.HARNESS, stop_reason="harness_error",
                   failure_reason="harness_bug", error_message=f"{phase}: {type(exc).__name__}: {exc}")

    def row_fields(self) -> dict[str, Any]:
        error = is_error(self.status)
        return {
            **super().row_fields(),
            "score": math.nan if error else self.score,
            "threshold": self.threshold,
            "turns": self.turns,
            "followups_used": self.followups_used,
            "best_turn": None if error or self.best_turn is None else self.best_turn - ROW_TURN_BASE,
            "turn_scores": json.dumps(self.turn_scores),  # NaN is written as NaN (json allows it)
            "checks_passed": self.checks_passed,
            "checks_total": self.checks_total,
            "leak_flags": json.dumps(self.leak_flags, ensure_ascii=False),
            "followup_leak_blocked": self.followup_leak_blocked,
        }
