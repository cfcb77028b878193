"""Outcome rules of AttemptRow and folding a usage summary into per-role columns."""

from __future__ import annotations

import math

import pydantic
import pytest

import clawmark

from clawmark.results import (
    RESULT_COLUMNS,
    RESULTS_SCHEMA,
    ErrorKind,
    Status,
    UnknownRole,
    cell_key,
    fold_usage,
    to_record,
)
from clawmark.results.synthetic import example_row


def test_cell_key_is_computed_from_identity_and_checked():
    row = example_row()
    expected = cell_key("closed_loop", "task-1", "th1", "nop", "1.0", {}, "scripted/demo", {"temperature": 0}, 0,
                        clawmark.PROTOCOL_VERSION)
    assert row.cell_key == expected
    with pytest.raises(pydantic.ValidationError, match="does not match"):
        example_row(cell_key="0" * 16)


def test_infra_error_is_missing_not_a_fail():
    row = example_row(status="infra_error", score=math.nan, error_message="engine gone")
    assert row.passed is None and math.isnan(row.score) and row.error_kind is ErrorKind.INFRA


def test_status_pass_with_score_under_threshold_is_rejected():
    # upstream defect 2: a "pass" label coexisting with passed=false
    with pytest.raises(pydantic.ValidationError, match="score >= threshold"):
        example_row(status="pass", score=0.5, threshold=0.9)


def test_passed_contradicting_status_is_rejected():
    with pytest.raises(pydantic.ValidationError, match="requires passed=False"):
        example_row(status="fail", score=0.2, passed=True)
    with pytest.raises(pydantic.ValidationError, match="requires passed=True"):
        example_row(status="resolved", track="patch", passed=False)


def test_closed_loop_passed_follows_best_score_unless_incomplete():
    # closed-loop.md: passed = best score >= threshold and the status is not an error or incomplete
    assert example_row(status="budget_exhausted", score=0.95, threshold=0.9).passed is True
    assert example_row(status="global_timeout", score=0.5, threshold=0.9).passed is False
    assert example_row(status="executor_incomplete", score=0.95, threshold=0.9).passed is False
    assert example_row(status="fail", score=math.nan, threshold=0.9).passed is False


def test_status_must_belong_to_the_track():
    with pytest.raises(pydantic.ValidationError, match="not a patch status"):
        example_row(track="patch", status="pass")
    with pytest.raises(pydantic.ValidationError, match="views only"):
        example_row(status="missing")


def test_patch_statuses_derive_resolved():
    resolved = example_row(track="patch", status="resolved", resolution="FULL", score=1.0, threshold=math.nan)
    apply_failed = example_row(track="patch", status="apply_failed", score=math.nan)
    eval_error = example_row(track="patch", status="eval_error", score=math.nan)
    assert (resolved.resolved, resolved.passed) == (True, True)
    assert (apply_failed.resolved, apply_failed.error_kind) == (False, ErrorKind.MODEL)
    assert eval_error.resolved is None and eval_error.passed is None


def test_fold_usage_fills_absent_roles_with_true_zeros():
    usage = fold_usage({"executor": {"input_tokens": 100, "cached_tokens": 40, "output_tokens": 7, "calls": 3, "cost_usd": 0.25}})
    assert usage["executor"].input_tokens == 100 and usage["executor"].calls == 3
    assert usage["supervisor"].input_tokens == 0 and usage["supervisor"].cost_usd == 0.0


def test_unpriced_call_makes_role_and_total_cost_nan():
    row = example_row(usage=fold_usage({
        "executor": {"input_tokens": 10, "cost_usd": 0.5, "calls": 1},
        "supervisor": {"input_tokens": 10, "cost_usd": 0.1, "calls": 2, "unpriced_calls": 1},
    }))
    assert math.isnan(row.usage["supervisor"].cost_usd) and math.isnan(row.cost_usd)
    assert math.isnan(to_record(row)["cost_usd"])


def test_total_cost_sums_roles():
    row = example_row(usage=fold_usage({"executor": {"cost_usd": 0.5}, "user_simulator": {"cost": 0.25}}))
    assert row.cost_usd == 0.75


def test_unknown_role_is_refused_not_dropped():
    with pytest.raises(UnknownRole, match="judge"):
        fold_usage({"judge": {"input_tokens": 5}})


def test_from_usage_builds_row_with_usage_columns():
    row = type(example_row()).from_usage({"executor": {"input_tokens": 9, "output_tokens": 1, "calls": 1, "cost_usd": 0.01}},
                                         **example_row().model_dump(exclude={"usage", "cell_key"}))
    record = to_record(row)
    assert record["executor_input_tokens"] == 9 and record["supervisor_calls"] == 0 and record["cost_usd"] == 0.01


def test_record_has_exactly_the_schema_columns_and_required_fields():
    record = to_record(example_row(status=Status.FAIL, score=0.2))
    assert tuple(record) == RESULT_COLUMNS == tuple(RESULTS_SCHEMA.names)
    for name in ("sweep_id", "cell_key", "track", "claw", "model", "seed", "protocol_version", "status", "passed",
                 "score", "resolution", "executor_cache_write_tokens", "user_simulator_reasoning_tokens",
                 "supervisor_cost_usd", "cost_usd", "wall_judge_s", "wall_total_s", "started_at", "finished_at",
                 "clawmark_version", "config_hash", "image_id", "scripted_model", "artifacts_dir"):
        assert name in record
    assert record["status"] == "fail" and record["passed"] is False


def test_long_error_message_is_capped():
    row = example_row(status="infra_error", score=math.nan, error_message="x" * 10_000)
    assert len(row.error_message) == 4000


def test_gateway_ledger_summary_folds_into_every_role(tmp_path):
    from clawmark.gateway.ledger import Ledger, UsageRecord, summarize_ledger

    ledger = Ledger(tmp_path / "ledger.jsonl")
    ledger.append(UsageRecord(attempt_id="a", role="executor", model="m", input_tokens=100, cached_tokens=60,
                              output_tokens=10, cost_usd=0.02))
    ledger.append(UsageRecord(attempt_id="a", role="executor", model="m", input_tokens=50, output_tokens=5, cost_usd=0.01))
    ledger.append(UsageRecord(attempt_id="a", role="user_simulator", model="m", input_tokens=7, output_tokens=3, cost_usd=0.001))
    usage = fold_usage(summarize_ledger(ledger.path))
    assert (usage["executor"].input_tokens, usage["executor"].cached_tokens, usage["executor"].calls) == (150, 60, 2)
    assert usage["executor"].cost_usd == pytest.approx(0.03)
    assert usage["user_simulator"].input_tokens == 7 and usage["user_simulator"].cost_usd == 0.001
    assert usage["supervisor"].calls == 0


def test_row_json_round_trip_keeps_nan():
    row = example_row(status="infra_error", score=math.nan,
                      usage=fold_usage({"executor": {"input_tokens": 3, "cost_usd": None}}))
    back = type(row).model_validate_json(row.model_dump_json())
    assert math.isnan(back.score) and math.isnan(back.wall.total) and math.isnan(back.usage["executor"].cost_usd)
    assert back.cell_key == row.cell_key and back.passed is None


def test_unpriced_call_in_a_real_ledger_makes_the_row_cost_nan(tmp_path):
    from clawmark.gateway.ledger import Ledger, UsageRecord, summarize_ledger

    ledger = Ledger(tmp_path / "ledger.jsonl")
    ledger.append(UsageRecord(attempt_id="a", role="executor", model="m", input_tokens=10, cost_usd=0.5))
    ledger.append(UsageRecord(attempt_id="a", role="supervisor", model="m", input_tokens=10))  # no known price
    row = example_row(usage=fold_usage(summarize_ledger(ledger.path)))
    record = to_record(row)
    assert record["executor_cost_usd"] == 0.5 and math.isnan(record["supervisor_cost_usd"])
    assert math.isnan(record["cost_usd"]) and record["supervisor_input_tokens"] == 10
