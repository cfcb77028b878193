"""Outcome vocabulary of one attempt: track, status, error kind, patch resolution.

One `Status` enum serves both tracks; `CLOSED_LOOP_STATUSES` and `PATCH_STATUSES` say which
values a row of each track may carry. `ERROR_STATUSES` are outcomes where the claw × model was
never fairly measured (infrastructure, provider, our own harness): such rows have
`passed = None` and a NaN score, are counted and shown as errors, never folded into fails.
"""

from __future__ import annotations

from enum import StrEnum


class Track(StrEnum):
    CLOSED_LOOP = "closed_loop"
    PATCH = "patch"


class Status(StrEnum):
    # closed-loop outcomes (closed-loop.md "Completion gate, stop order, outcome")
    PASS = "pass"
    FAIL = "fail"
    BUDGET_EXHAUSTED = "budget_exhausted"
    GLOBAL_TIMEOUT = "global_timeout"
    EXECUTOR_INCOMPLETE = "executor_incomplete"
    PRE_EXEC_FAILED = "pre_exec_failed"
    # patch outcomes (patch-tasks.md "Predictions and reports", "Evaluation")
    RESOLVED = "resolved"
    UNRESOLVED = "unresolved"
    EMPTY_PATCH = "empty_patch"
    APPLY_FAILED = "apply_failed"
    EVAL_ERROR = "eval_error"
    # either track
    RATE_LIMIT = "rate_limit"
    INFRA_ERROR = "infra_error"
    HARNESS_ERROR = "harness_error"
    # views only (a cell expected by a sweep with no row yet); never written by the store
    RUNNING = "running"
    MISSING = "missing"


class ErrorKind(StrEnum):
    """Who is to blame for an outcome other than a clean pass/fail."""

    NONE = "none"  # the attempt ran to a verdict
    INFRA = "infra"  # docker, network, provider outage, rate limit: not the claw's fault
    MODEL = "model"  # the model/claw misbehaved (unparseable output, patch does not apply)
    BUDGET = "budget"  # a token/cost/turn budget ran out
    TIMEOUT = "timeout"  # a wall-clock budget ran out
    HARNESS = "harness"  # a bug in clawmark itself
    MISSING = "missing"  # no result exists (views only)


class Resolution(StrEnum):
    """SWE-bench resolution of a graded patch."""

    FULL = "FULL"
    PARTIAL = "PARTIAL"
    NO = "NO"


_SHARED = frozenset({Status.RATE_LIMIT, Status.INFRA_ERROR, Status.HARNESS_ERROR})

CLOSED_LOOP_STATUSES: frozenset[Status] = _SHARED | {
    Status.PASS,
    Status.FAIL,
    Status.BUDGET_EXHAUSTED,
    Status.GLOBAL_TIMEOUT,
    Status.EXECUTOR_INCOMPLETE,
    Status.PRE_EXEC_FAILED,
}

PATCH_STATUSES: frozenset[Status] = _SHARED | {
    Status.RESOLVED,
    Status.UNRESOLVED,
    Status.EMPTY_PATCH,
    Status.APPLY_FAILED,
    Status.EVAL_ERROR,
}

VIEW_ONLY_STATUSES: frozenset[Status] = frozenset({Status.RUNNING, Status.MISSING})

# The attempt produced no fair measurement: passed/resolved stay null, score stays NaN.
ERROR_STATUSES: frozenset[Status] = _SHARED | {Status.PRE_EXEC_FAILED, Status.EVAL_ERROR}

# Statuses that are a success by themselves. Patch: every other non-error status is a measured
# failure. Closed-loop: `passed` is the best score against the threshold (closed-loop.md), so a
# budget_exhausted / global_timeout / fail row may still carry passed=True; count the boolean.
SUCCESS_STATUSES: frozenset[Status] = frozenset({Status.PASS, Status.RESOLVED})

DEFAULT_ERROR_KIND: dict[Status, ErrorKind] = {
    Status.PASS: ErrorKind.NONE,
    Status.FAIL: ErrorKind.NONE,
    Status.RESOLVED: ErrorKind.NONE,
    Status.UNRESOLVED: ErrorKind.NONE,
    Status.EMPTY_PATCH: ErrorKind.MODEL,
    Status.APPLY_FAILED: ErrorKind.MODEL,
    Status.EXECUTOR_INCOMPLETE: ErrorKind.MODEL,
    Status.BUDGET_EXHAUSTED: ErrorKind.BUDGET,
    Status.GLOBAL_TIMEOUT: ErrorKind.TIMEOUT,
    Status.PRE_EXEC_FAILED: ErrorKind.INFRA,
    Status.EVAL_ERROR: ErrorKind.HARNESS,
    Status.RATE_LIMIT: ErrorKind.INFRA,
    Status.INFRA_ERROR: ErrorKind.INFRA,
    Status.HARNESS_ERROR: ErrorKind.HARNESS,
    Status.RUNNING: ErrorKind.MISSING,
    Status.MISSING: ErrorKind.MISSING,
}


def statuses_for(track: Track) -> frozenset[Status]:
    return CLOSED_LOOP_STATUSES if track is Track.CLOSED_LOOP else PATCH_STATUSES


def is_error(status: Status) -> bool:
    """True when the row measures nothing about the claw × model (counted apart, never a fail)."""
    return status in ERROR_STATUSES
