"""Outcome vocabulary of one attempt: track, status, error kind, patch resolution.

One `Status` enum serves both tracks; `CLOSED_LOOP_STATUSES` and `PATCH_STATUSES` say which
values a row of each track may carry. `ERROR_STATUSES` are outcomes where the claw × model was
never fairly measured (infrastructure, provider, our own harness): such rows have
`passed = None` and a NaN score, are counted and shown as errors, never folded into fails.

Who caused it decides where it counts (ARCHITECTURE.md invariant 4):
- What the world caused is an error status (NaN, left out of every denominator, rerunnable by
  `rerun-failed` through its infra/harness error kind): the engine went away, the image is
  missing or does not build, the host killed the container, the row cannot be evaluated, a bug
  of ours.
- What the claw or its patch can cause is a measured failure (`resolved = False`, in every
  denominator, error kind `model`, never rerun): no patch (`empty_patch`), a patch that does
  not apply (`apply_failed`), and an evaluation the patch broke (`eval_failed`). SWE-bench
  counts all of these as unresolved; a grader that dropped them would reward a patch for
  breaking its own evaluation.
- `failure_reason` (results column) tells the measured failures and the errors apart, finer
  than the status; `FailureReason` below lists the patch-track values.
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
    # refused before provisioning: the package lacks content (Git LFS pointers, empty rubric...)
    TASK_UNRUNNABLE = "task_unrunnable"
    # patch outcomes (patch-tasks.md "Predictions and reports", "Evaluation")
    RESOLVED = "resolved"
    UNRESOLVED = "unresolved"
    EMPTY_PATCH = "empty_patch"
    APPLY_FAILED = "apply_failed"
    EVAL_FAILED = "eval_failed"  # the patch broke its evaluation: a measured failure (failure_reason says how)
    EVAL_ERROR = "eval_error"  # the evaluator could not evaluate (bad row, our bug): an error
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
    UNRUNNABLE = "unrunnable"  # the task package cannot run as checked out (fix the clone; never rerun as is)


class Resolution(StrEnum):
    """SWE-bench resolution of a graded patch, as rows store it; SWE-bench's own files and
    functions spell it `RESOLVED_FULL`..., translated here and only here (`swebench`, and
    reading a swebench spelling back)."""

    FULL = "FULL"
    PARTIAL = "PARTIAL"
    NO = "NO"

    @property
    def swebench(self) -> str:
        """swebench's spelling (`get_resolution_status`, report files): RESOLVED_FULL..."""
        return f"{SWEBENCH_RESOLUTION_PREFIX}{self.value}"

    @classmethod
    def _missing_(cls, value: object) -> Resolution | None:
        if isinstance(value, str) and value.startswith(SWEBENCH_RESOLUTION_PREFIX):
            return cls.__members__.get(value.removeprefix(SWEBENCH_RESOLUTION_PREFIX))
        return None


SWEBENCH_RESOLUTION_PREFIX = "RESOLVED_"


_SHARED = frozenset({Status.RATE_LIMIT, Status.INFRA_ERROR, Status.HARNESS_ERROR})

CLOSED_LOOP_STATUSES: frozenset[Status] = _SHARED | {
    Status.PASS,
    Status.FAIL,
    Status.BUDGET_EXHAUSTED,
    Status.GLOBAL_TIMEOUT,
    Status.EXECUTOR_INCOMPLETE,
    Status.PRE_EXEC_FAILED,
    Status.TASK_UNRUNNABLE,
}

PATCH_STATUSES: frozenset[Status] = _SHARED | {
    Status.RESOLVED,
    Status.UNRESOLVED,
    Status.EMPTY_PATCH,
    Status.APPLY_FAILED,
    Status.EVAL_FAILED,
    Status.EVAL_ERROR,
}

VIEW_ONLY_STATUSES: frozenset[Status] = frozenset({Status.RUNNING, Status.MISSING})

# The attempt produced no fair measurement: passed/resolved stay null, score stays NaN.
# task_unrunnable is one of them: refused before provisioning, it measured nothing and no denominator counts it.
ERROR_STATUSES: frozenset[Status] = _SHARED | {Status.PRE_EXEC_FAILED, Status.EVAL_ERROR, Status.TASK_UNRUNNABLE}

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
    Status.EVAL_FAILED: ErrorKind.MODEL,
    Status.EXECUTOR_INCOMPLETE: ErrorKind.MODEL,
    Status.BUDGET_EXHAUSTED: ErrorKind.BUDGET,
    Status.GLOBAL_TIMEOUT: ErrorKind.TIMEOUT,
    Status.PRE_EXEC_FAILED: ErrorKind.INFRA,
    Status.TASK_UNRUNNABLE: ErrorKind.UNRUNNABLE,
    Status.EVAL_ERROR: ErrorKind.HARNESS,
    Status.RATE_LIMIT: ErrorKind.INFRA,
    Status.INFRA_ERROR: ErrorKind.INFRA,
    Status.HARNESS_ERROR: ErrorKind.HARNESS,
    Status.RUNNING: ErrorKind.MISSING,
    Status.MISSING: ErrorKind.MISSING,
}


class FailureReason(StrEnum):
    """Patch track: why a row is a measured failure, or which part of the world failed."""

    # measured failures: the patch caused them (status empty_patch / apply_failed / eval_failed / unresolved)
    EMPTY_PATCH = "empty_patch"
    APPLY_FAILED = "apply_failed"
    TESTS_TIMEOUT = "tests_timeout"  # the eval script ran past its deadline
    TESTS_ERRORED = "tests_errored"  # a fault marker inside the test region, or the tests stopped their container
    TESTS_OOM = "tests_oom"  # the engine saw the OOM killer end a test process at the evaluator's memory limit
    LOG_UNUSABLE = "log_unusable"  # region missing, suite did not run, log unreadable
    EXIT_CODE_CONTRADICTS_LOG = "exit_code_contradicts_log"  # all parsed tests pass, the harness exit code says not
    OUTPUT_FLOOD = "output_flood"  # the test output is over the evaluator's size limit
    FORGED_MARKERS = "forged_markers"  # graded unresolved, and the test output printed marker or exit-code lines
    # errors: the world or clawmark caused them (status infra_error / eval_error)
    IMAGE_MISSING = "image_missing"
    IMAGE_BUILD_FAILED = "image_build_failed"
    CONTAINER_GONE = "container_gone"  # killed or removed by the host or the engine
    ENGINE_ERROR = "engine_error"
    EVAL_SCRIPT_MISSING = "eval_script_missing"  # the row has no eval_script and no test_cmd
    HARNESS_BUG = "harness_bug"


def statuses_for(track: Track) -> frozenset[Status]:
    return CLOSED_LOOP_STATUSES if track is Track.CLOSED_LOOP else PATCH_STATUSES


def is_error(status: Status) -> bool:
    """True when the row measures nothing about the claw × model (counted apart, never a fail)."""
    return status in ERROR_STATUSES
