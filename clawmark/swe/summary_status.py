"""The one translation from the rows' vocabulary (clawmark.results.status) to the statuses of
clawmark's SWE-bench-shaped run summary (`<status>_ids`, `status_counts` in run_summary.json),
the per-instance lines of `clawmark swe evaluate` and the evaluator's run_instance.log.

The summary names what the evaluator saw more finely than a row's status does: a row's
`eval_failed` is a timeout, a log with no result or an output flood; its `infra_error` may be
an image that is missing. `failure_reason` and the grader's `no_result_reason` tell them apart."""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from clawmark.results.status import FailureReason, Status


class SummaryStatus(StrEnum):
    RESOLVED = "resolved"
    UNRESOLVED = "unresolved"  # graded: the model's patch did not (fully) fix it
    EMPTY_PATCH = "empty_patch"  # nothing to run
    APPLY_FAILED = "apply_failed"  # no command of the chain applied the patch
    EVAL_TIMEOUT = "eval_timeout"  # the eval script ran past its deadline (measured: tests_timeout)
    NO_RESULT = "no_result"  # the log gives no usable result (measured: failure_reason says why)
    OUTPUT_FLOOD = "output_flood"  # the eval script's output is over the size limit (measured)
    EVAL_ERROR = "eval_error"  # the row cannot be evaluated (no eval script nor test_cmd): an error
    INFRA_ERROR = "infra_error"  # engine, container, build or git trouble: not the model's fault
    IMAGE_MISSING = "image_missing"  # the row's image is absent and cannot be built here


class Evaluated(Protocol):
    """What the translation reads of an evaluator outcome (clawmark.swe.evaluate.EvalOutcome)."""

    status: Status
    failure_reason: FailureReason | None
    no_result_reason: object | None


def summary_status(outcome: Evaluated) -> SummaryStatus:
    """The run summary's status of an evaluator outcome."""
    reason = outcome.failure_reason
    if outcome.status is Status.EVAL_FAILED:
        if reason == FailureReason.OUTPUT_FLOOD:
            return SummaryStatus.OUTPUT_FLOOD
        # a timeout the harness saw; a timeout marker inside the test region is a log without a result
        if reason == FailureReason.TESTS_TIMEOUT and outcome.no_result_reason is None:
            return SummaryStatus.EVAL_TIMEOUT
        return SummaryStatus.NO_RESULT
    if outcome.status is Status.INFRA_ERROR and reason == FailureReason.IMAGE_MISSING:
        return SummaryStatus.IMAGE_MISSING
    return SummaryStatus(outcome.status.value)
