"""Ranks and their bootstrap stability on a three-group case solvable by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.ranking import competition_ranks, rank_agreement, rank_stability


def _frame():
    outcomes = {"A": [True, True], "B": [False, False], "C": [True, False]}
    rows = [{"claw": c, "model": "m", "task_id": f"t{i + 1}", "passed": p, "cost_usd": 1.0}
            for c, ps in outcomes.items() for i, p in enumerate(ps)]
    rows.append({"claw": "E", "model": "m", "task_id": "t1", "passed": None, "cost_usd": 1.0})  # only an error
    return pd.DataFrame(rows).astype({"passed": "boolean"})


def test_competition_ranks_share_the_better_rank_on_ties():
    ranks = competition_ranks(np.array([0.5, 0.9, 0.5, np.nan]))
    assert list(ranks[:3]) == [2.0, 1.0, 2.0] and math.isnan(ranks[3])


def test_rank_stability_by_hand():
    table = rank_stability(_frame(), n_boot=4000, seed=2).set_index("claw")
    assert list(table.index) == ["A", "C", "B", "E"]
    assert list(table["rank"][:3]) == [1.0, 2.0, 3.0] and math.isnan(table.loc["E", "rank"])
    # C ties A for first only when both drawn tasks are t1 (1/4); A is never beaten
    assert table.loc["A", "p_first"] == 1.0 and table.loc["C", "p_first"] == pytest.approx(0.25, abs=0.03)
    assert (table.loc["B", "rank_low"], table.loc["B", "rank_high"]) == (2.0, 3.0)


def test_rank_agreement_by_hand():
    # draws t1t1 and t2t2 (1/4 each) tie one pair -> tau 2/3; mixed draws (1/2) keep the order -> 1
    assert rank_agreement(_frame(), n_boot=4000, seed=2) == pytest.approx(5 / 6, abs=0.02)


def test_single_group_has_no_agreement_to_measure():
    frame = _frame()
    assert math.isnan(rank_agreement(frame[frame["claw"] == "A"], n_boot=10))
