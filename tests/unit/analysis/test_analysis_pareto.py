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


def _trials(claw, outcomes, cost):
    return [{"claw": claw, "model": "m", "task_id": t, "passed": p, "cost_usd": cost} for t, p in outcomes]


def test_front_share_by_hand():
    from analysis.pareto import front_share

    rows = (_trials("A", [("t1", True), ("t2", True)], 1.0)       # always perfect, mid cost
            + _trials("B", [("t1", False), ("t2", False)], 2.0)   # beaten by A in every draw
            + _trials("C", [("t1", True), ("t2", False)], 0.5))   # cheapest: always on the front
    frame = pd.DataFrame(rows).astype({"passed": "boolean"})
    share = front_share(frame, n_boot=4000, seed=1).set_index("claw")["front_share"]
    # A is beaten only when C also scores 1, i.e. both drawn tasks are t1: probability 1/4
    assert share["C"] == 1.0 and share["B"] == 0.0
    assert share["A"] == pytest.approx(0.75, abs=0.03)


def test_front_share_is_seeded_and_never_places_unpriced_groups():
    from analysis.pareto import front_share

    rows = _trials("A", [("t1", True), ("t2", False)], 1.0) + _trials("U", [("t1", True), ("t2", True)], float("nan"))
    frame = pd.DataFrame(rows).astype({"passed": "boolean"})
    first = front_share(frame, n_boot=200, seed=5)
    assert first.equals(front_share(frame, n_boot=200, seed=5))
    share = first.set_index("claw")["front_share"]
    assert share["U"] == 0.0 and share["A"] == 1.0
