"""pass@1 on a results table holding one row of every patch-evaluation outcome, each mapped to a
row by the attempt runner's own mapping and read back from Parquet: what the patch caused stays
in the denominator, what the world caused is counted apart and is the only thing rerun."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.metrics import pass_at_1
from clawmark.attempts.grading import patch_outcome
from clawmark.results import ResultStore
from clawmark.results.synthetic import example_row
from clawmark.sweeps.plan import RERUNNABLE_ERROR_KINDS
from clawmark.results.status import Status
from clawmark.swe.evaluate import EvalOutcome
from clawmark.swe.summary_status import summary_status

# task id → (the evaluator's status: the row's, failure reason, its name in the run summary); the "both"
# task has two seeds.
OUTCOMES = {
    "resolved": ("resolved", None, "resolved"),
    "unresolved": ("unresolved", None, "unresolved"),
    "forged": ("unresolved", "forged_markers", "unresolved"),
    "empty": ("empty_patch", "empty_patch", "empty_patch"),
    "apply": ("apply_failed", "apply_failed", "apply_failed"),
    "timeout": ("eval_failed", "tests_timeout", "eval_timeout"),
    "errored": ("eval_failed", "tests_errored", "no_result"),
    "unusable": ("eval_failed", "log_unusable", "no_result"),
    "contradicted": ("eval_failed", "exit_code_contradicts_log", "no_result"),
    "flood": ("eval_failed", "output_flood", "output_flood"),
    "bad-row": ("eval_error", "eval_script_missing", "eval_error"),
    "killed": ("infra_error", "container_gone", "infra_error"),
    "no-image": ("infra_error", "image_missing", "image_missing"),
}
MEASURED_FAILURES = {"unresolved", "forged", "empty", "apply", "timeout", "errored", "unusable", "contradicted", "flood"}
ERRORS = {"bad-row", "killed", "no-image"}


def _evaluated(task_id: str, status: str, reason: str | None) -> EvalOutcome:
    return EvalOutcome(instance_id=task_id, status=Status(status), failure_reason=reason,
                       resolution="RESOLVED_FULL" if status == "resolved" else None, network_policy="default")


def _row(task_id: str, status: str, reason: str | None, seed: int = 0):
    outcome = patch_outcome(_evaluated(task_id, status, reason))
    return example_row(track="patch", task_id=task_id, seed=seed, status=outcome.status, score=math.nan,
                       error_kind=outcome.error_kind, failure_reason=outcome.failure_reason,
                       network_policy=outcome.network_policy)


@pytest.fixture
def table(tmp_path):
    store = ResultStore(tmp_path, fsync=False)
    for task_id, (status, reason, _) in OUTCOMES.items():
        store.write(_row(task_id, status, reason))
    store.write(_row("both", "resolved", None, seed=0))
    store.write(_row("both", "infra_error", "container_gone", seed=1))
    return store.read()


def test_pass_at_1_counts_patch_caused_failures_and_leaves_world_errors_out(table):
    line = pass_at_1(table, n_boot=200).iloc[0]
    # measured tasks: resolved (1/1), both (1/1: its error seed left out), 9 measured failures (0/1 each)
    assert line["pass_at_1"] == pytest.approx((1 + 1 + 0 * 9) / 11)
    assert (line["tasks"], line["trials"], line["errors"]) == (11, 11, 4)


def test_each_outcome_keeps_its_reason_and_only_world_errors_are_rerun(table):
    rows = table.set_index(["task_id", "seed"])
    for task_id in MEASURED_FAILURES:
        row = rows.loc[(task_id, 0)]
        assert not pd.isna(row["resolved"]) and not row["resolved"]
        assert row["error_kind"] not in RERUNNABLE_ERROR_KINDS
        assert (None if pd.isna(row["failure_reason"]) else row["failure_reason"]) == OUTCOMES[task_id][1]
    for task_id in ERRORS:
        row = rows.loc[(task_id, 0)]
        assert pd.isna(row["passed"]) and pd.isna(row["resolved"])
        assert row["error_kind"] in RERUNNABLE_ERROR_KINDS and row["failure_reason"] == OUTCOMES[task_id][1]
    assert set(rows.loc[[(t, 0) for t in ("timeout", "errored", "flood")], "status"]) == {"eval_failed"}
    assert set(table["network_policy"]) == {"default"}


def test_the_run_summary_names_each_outcome_as_the_evaluator_did():
    named = {task_id: summary_status(_evaluated(task_id, status, reason)).value
             for task_id, (status, reason, _) in OUTCOMES.items()}
    assert named == {task_id: summary for task_id, (_, _, summary) in OUTCOMES.items()}
