"""Paired comparisons, Holm, Kendall tau-b and judge agreement on hand-computed cases."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.compare import all_pairs, holm, judge_agreement, kendall_tau_b, paired_comparison, sign_test_p


def _rows(outcomes: dict[str, list]) -> pd.DataFrame:
    """{model: [passed per task t0..tn]} → rows of claw c, one trial per task (None = error)."""
    rows = [("c", model, f"t{i}", 0, p) for model, passes in outcomes.items() for i, p in enumerate(passes)]
    frame = pd.DataFrame(rows, columns=["claw", "model", "task_id", "seed", "passed"])
    frame["passed"] = frame["passed"].astype("boolean")
    frame["cost_usd"] = 1.0
    return frame


def test_sign_test_matches_binomial_by_hand():
    # 9 wins, 1 loss: P(X<=1 | n=10) = (1 + 10) / 1024, two-sided doubles it
    assert sign_test_p(9, 1) == pytest.approx(22 / 1024)
    assert sign_test_p(0, 0) == 1.0
    assert sign_test_p(3, 3) == 1.0


def test_paired_comparison_counts_only_shared_measured_tasks():
    # t5 is an error for b: left out; a wins t0..t3, ties t4
    frame = _rows({"a": [True, True, True, True, False, True], "b": [False, False, False, False, False, None]})
    result = paired_comparison(frame, ("c", "a"), ("c", "b"), n_boot=500)
    assert (result["tasks"], result["a_better"], result["b_better"], result["ties"]) == (5, 4, 0, 1)
    assert result["difference"] == pytest.approx(0.8)
    assert result["p_value"] == pytest.approx(2 / 16)
    assert not result["significant"]
    assert "McNemar" in result["test"]


def test_all_pairs_applies_holm():
    frame = _rows({"a": [True] * 10, "b": [False] * 10, "c": [True] * 9 + [False]})
    table = all_pairs(frame, n_boot=200).set_index(["a", "b"])
    raw = table["p_value"].tolist()
    assert table["p_holm"].tolist() == pytest.approx(holm(raw))
    assert bool(table.loc[("c × a", "c × b"), "significant"])  # 10 of 10: p = 2/1024, x3 still < .05
    assert not bool(table.loc[("c × a", "c × c"), "significant"])


def test_holm_by_hand():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def test_kendall_tau_b_with_ties_by_hand():
    first = pd.Series({"x": 1.0, "y": 2.0, "z": 3.0})
    assert kendall_tau_b(first, first) == pytest.approx(1.0)
    assert kendall_tau_b(first, -first) == pytest.approx(-1.0)
    tied = pd.Series({"x": 1.0, "y": 1.0, "z": 3.0})
    # pairs: (x,y) 1·0, (x,z) 1·1, (y,z) 1·1 → 2 / sqrt(3·2)
    assert kendall_tau_b(first, tied) == pytest.approx(2 / math.sqrt(6))
    assert math.isnan(kendall_tau_b(first, pd.Series({"x": 1.0})))


def test_judge_agreement_and_kappa_by_hand():
    base = _rows({"m": [True, True, False, False]}).assign(score=[0.9, 0.95, 0.2, 0.4])
    other = base.assign(passed=pd.array([True, False, False, False], dtype="boolean"), score=[0.9, 0.5, 0.2, 0.1])
    result = judge_agreement(base, other)
    # observed 3/4; expected 0.5·0.25 + 0.5·0.75 = 0.5; kappa = 0.25/0.5
    assert (result["cells"], result["agreement"], result["kappa"]) == (4, 0.75, pytest.approx(0.5))
    assert result["mean_abs_score_diff"] == pytest.approx((0 + 0.45 + 0 + 0.3) / 4)
