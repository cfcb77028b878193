"""Metrics on hand-computable cases; errors never count as fails."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.metrics import bootstrap_ci, mean_score, pass_at_1, pass_at_k, task_trials
from clawmark.results import ResultStore
from clawmark.results.synthetic import example_row

# group A: t1 = P,P,F (2/3); t2 = F,F,F (0/3); t3 = P + one infra error (1/1, 1 error)
TRIALS_A = [("t1", True), ("t1", True), ("t1", False), ("t2", False), ("t2", False), ("t2", False),
            ("t3", True), ("t3", None)]
# group B: every trial is an infra error
TRIALS_B = [("t1", None), ("t2", None)]


def _frame():
    rows = [("c", "a", t, p) for t, p in TRIALS_A] + [("c", "b", t, p) for t, p in TRIALS_B]
    frame = pd.DataFrame(rows, columns=["claw", "model", "task_id", "passed"])
    frame["passed"] = frame["passed"].astype("boolean")
    return frame


def _line(table, model):
    return table.set_index("model").loc[model]


def test_task_trials_counts_measured_passed_and_errors():
    t3 = task_trials(_frame()).set_index(["model", "task_id"]).loc[("a", "t3")]
    assert (t3["n"], t3["c"], t3["errors"]) == (1, 1, 1)


def test_pass_at_1_averages_tasks_and_leaves_errors_out():
    a = _line(pass_at_1(_frame(), n_boot=200), "a")
    assert a["pass_at_1"] == pytest.approx((2 / 3 + 0 + 1) / 3)
    assert (a["tasks"], a["trials"], a["errors"]) == (3, 7, 1)
    assert a["ci_low"] <= a["pass_at_1"] <= a["ci_high"]


def test_all_error_group_is_missing_not_zero():
    b = _line(pass_at_1(_frame(), n_boot=200), "b")
    assert math.isnan(b["pass_at_1"]) and b["errors"] == 2 and b["tasks"] == 0


def test_pass_at_k_and_pass_hat_k_by_hand():
    a = _line(pass_at_k(_frame(), 2), "a")
    # t1: 1 - C(1,2)/C(3,2) = 1, pass^2 = C(2,2)/C(3,2) = 1/3; t2: 0 and 0; t3 has one trial -> short
    assert a["pass_at_k"] == pytest.approx(0.5) and a["pass_hat_k"] == pytest.approx(1 / 6)
    assert (a["tasks"], a["short_tasks"]) == (2, 1)


def test_pass_at_k_with_k_1_equals_pass_at_1():
    a = _line(pass_at_k(_frame(), 1), "a")
    assert a["pass_at_k"] == pytest.approx(5 / 9) == a["pass_hat_k"]
    with pytest.raises(ValueError):
        pass_at_k(_frame(), 0)


def test_bootstrap_is_seeded_and_degenerates_on_constant_values():
    values = [0, 1, 1, 0, 1, 0, 0, 1, 1, 1]
    assert bootstrap_ci(values, seed=3) == bootstrap_ci(values, seed=3)
    low, high = bootstrap_ci(values, seed=3)
    assert 0 <= low < 0.6 < high <= 1
    assert bootstrap_ci([0.25] * 5) == (0.25, 0.25)
    assert all(math.isnan(x) for x in bootstrap_ci([]))


def test_mean_score_ignores_nan_but_counts_it_and_keeps_real_zeros():
    frame = pd.DataFrame({"claw": ["c"] * 4, "model": ["a"] * 4, "score": [0.5, float("nan"), 1.0, 0.0]})
    line = mean_score(frame).iloc[0]
    assert line["mean_score"] == pytest.approx(0.5) and (line["scored"], line["unscored"]) == (3, 1)


def test_metrics_read_rows_straight_from_the_store(tmp_path):
    store = ResultStore(tmp_path, fsync=False)
    store.write(example_row(task_id="t1", seed=0))
    store.write(example_row(task_id="t1", seed=1, status="fail", score=0.2))
    store.write(example_row(task_id="t2", seed=0, status="infra_error", score=float("nan")))
    line = pass_at_1(store.read(), n_boot=100).iloc[0]
    assert line["pass_at_1"] == pytest.approx(0.5) and line["errors"] == 1 and line["tasks"] == 1
