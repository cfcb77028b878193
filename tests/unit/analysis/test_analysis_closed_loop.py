"""Follow-up gain, best-turn distribution, usage tables and breakdowns on hand-computed rows."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from analysis.breakdown import breakdown
from analysis.closed_loop import followup_gain, score_summary
from analysis.usage import cost_summary, tokens_per_role
from clawmark.results import to_frame, to_table
from clawmark.results.synthetic import example_row
from clawmark.results.usage import RoleUsage


def _row(task, status, score, turns, scores, best, **extra):
    return example_row(task_id=task, status=status, score=score, turns=turns, turn_scores=json.dumps(scores),
                       best_turn=best, **extra)


def _frame():
    rows = [
        _row("t1", "pass", 0.95, 1, [0.95], 0),              # passes on turn 1
        _row("t2", "pass", 0.92, 2, [0.5, 0.92], 1),          # passes only after one follow-up
        _row("t3", "fail", 0.6, 3, [0.3, 0.6, float("nan")], 1),  # never passes; turn 3 unscored
        _row("t4", "infra_error", float("nan"), 1, [], None),  # error: not in any rate
    ]
    return to_frame(to_table(rows))


def test_followup_gain_is_pass_rate_by_turn():
    gain = followup_gain(_frame()).set_index("turn")["pass_rate"]
    assert gain.to_dict() == {1: pytest.approx(1 / 3), 2: pytest.approx(2 / 3), 3: pytest.approx(2 / 3)}


def test_score_summary_mean_and_best_turn_shares():
    summary = score_summary(_frame()).iloc[0]
    assert summary["mean_score"] == pytest.approx((0.95 + 0.92 + 0.6) / 3)
    assert summary["scored"] == 3
    assert (summary["best_turn_1"], summary["best_turn_2"]) == (pytest.approx(1 / 3), pytest.approx(2 / 3))


def test_usage_tables_by_hand():
    usage = {"executor": RoleUsage(input_tokens=1000, cached_tokens=400, output_tokens=100, calls=2, cost_usd=0.02),
             "supervisor": RoleUsage(input_tokens=500, cached_tokens=0, output_tokens=50, calls=1, cost_usd=0.01)}
    rows = [example_row(task_id="a", usage=usage), example_row(task_id="a", seed=1, usage=usage),
            example_row(task_id="b", usage={**usage, "executor": RoleUsage(input_tokens=1000, cached_tokens=600,
                                                                           output_tokens=100, calls=1, cost_usd=0.06)})]
    frame = to_frame(to_table(rows))
    roles = tokens_per_role(frame).set_index("role")
    assert roles.loc["executor", "input"] == 1000 and roles.loc["supervisor", "cost_usd"] == pytest.approx(0.01)
    assert "user_simulator" not in roles.index  # no calls: not a role of this configuration
    summary = cost_summary(frame).iloc[0]
    # task a: 0.03 per attempt; task b: 0.07 → mean over tasks 0.05 (not weighted by seeds)
    assert summary["cost_per_task"] == pytest.approx(0.05)
    assert summary["cache_hit_rate"] == pytest.approx((400 + 400 + 600) / (1500 * 3))


def test_breakdown_by_language_leaves_errors_out():
    rows = [example_row(task_id="e1", language="en"), example_row(task_id="z1", language="zh", status="fail", score=0.2),
            example_row(task_id="z2", language="zh", status="infra_error", score=math.nan)]
    table = breakdown(to_frame(to_table(rows)), "language", n_boot=100).set_index("language")
    assert table.loc["en", "pass_at_1"] == 1.0 and table.loc["zh", "pass_at_1"] == 0.0
    assert table.loc["zh", "errors"] == 1
    with pytest.raises(KeyError):
        breakdown(pd.DataFrame({"claw": []}), "nonsense")
