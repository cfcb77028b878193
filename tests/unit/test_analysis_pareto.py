"""Pareto front of cost vs accuracy on a hand-drawn set of points."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.pareto import cost_accuracy, on_front, pareto_front

POINTS = pd.DataFrame({
    "name": ["A", "B", "C", "D", "E", "F"],
    "mean_cost": [1.0, 2.0, 3.0, 0.5, 2.0, float("nan")],
    "pass_at_1": [0.5, 0.7, 0.6, 0.2, 0.65, 0.9],
})


def test_front_keeps_only_undominated_points_sorted_by_cost():
    # C is beaten by B (cheaper, more accurate); E by B (same cost, less accurate); F has no cost
    assert list(pareto_front(POINTS)["name"]) == ["D", "A", "B"]


def test_on_front_mask_aligns_with_points():
    assert list(on_front(POINTS)) == [True, True, False, True, False, False]


def test_equal_points_keep_one():
    twins = pd.DataFrame({"mean_cost": [1.0, 1.0], "pass_at_1": [0.5, 0.5]})
    assert len(pareto_front(twins)) == 1


def test_cost_accuracy_counts_unpriced_rows_and_never_reads_them_as_free():
    frame = pd.DataFrame({
        "claw": ["c"] * 3, "model": ["m"] * 3, "task_id": ["t1", "t2", "t3"],
        "passed": pd.array([True, False, True], dtype="boolean"), "cost_usd": [1.0, 3.0, float("nan")],
    })
    line = cost_accuracy(frame, n_boot=100).iloc[0]
    assert line["pass_at_1"] == pytest.approx(2 / 3)
    assert line["mean_cost"] == pytest.approx(2.0) and line["unpriced"] == 1 and math.isnan(line["total_cost"])
