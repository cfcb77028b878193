"""Cost-vs-accuracy: per claw x model points and their Pareto front.

Cost per attempt is the mean `cost_usd` over priced rows; unpriced rows (NaN cost) are counted
in `unpriced` and never read as free, and the group's `total_cost` is NaN as soon as one is. A point with unknown cost or accuracy is not placed on
the front (it cannot be compared), but it stays in the points table.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.bootstrap import nan_interval, paired_draws, task_matrices, weighted_mean
from analysis.metrics import GROUP, pass_at_1
from analysis.usage import known_mean_total


def cost_accuracy(frame: pd.DataFrame, by: Sequence[str] = GROUP, **ci_options) -> pd.DataFrame:
    """pass@1 (with CI) joined with mean cost per priced attempt and total cost, per group."""
    accuracy = pass_at_1(frame, by, **ci_options)
    cost = known_mean_total(frame[list(by)], frame["cost_usd"]).rename(
        columns={"mean": "mean_cost", "total": "total_cost", "unknown": "unpriced"})
    return accuracy.merge(cost.reset_index(), on=list(by), how="left")


def pareto_front(points: pd.DataFrame, cost: str = "mean_cost", accuracy: str = "pass_at_1") -> pd.DataFrame:
    """Points no other point beats on both axes (cheaper-or-equal AND at-least-as-accurate,
    one strictly), sorted by cost. Of exact duplicates the first is kept."""
    placed = points.dropna(subset=[cost, accuracy])
    ordered = placed.sort_values([cost, accuracy], ascending=[True, False], kind="stable")
    best, keep = -np.inf, []
    for label, value in ordered[accuracy].items():
        if value > best:
            keep.append(label)
            best = value
    return ordered.loc[keep]


def on_front(points: pd.DataFrame, cost: str = "mean_cost", accuracy: str = "pass_at_1") -> pd.Series:
    """Boolean mask over `points`: True where the point is on the Pareto front."""
    return pd.Series(points.index.isin(pareto_front(points, cost, accuracy).index), index=points.index)


def front_share(frame: pd.DataFrame, by: Sequence[str] = GROUP, *, n_boot: int = 1000,
                seed: int = 0) -> pd.DataFrame:
    """How sure is the front? Per group: the share of bootstrap resamples in which it is on the
    Pareto front (`front_share`), with a percentile interval of its mean cost.

    Tasks are resampled once per draw and shared by all groups (paired), so groups are compared
    on the same tasks; per group, pass@1 and cost of a draw average its measured (resp. priced)
    tasks with the draw's multiplicities. A group with no measured task in a draw is off the front.
    """
    rates, costs, groups = task_matrices(frame, by)
    draws = paired_draws(rates.shape[1], n_boot, seed)
    accuracy, cost = weighted_mean(draws, rates), weighted_mean(draws, costs)
    share = _on_front(cost, accuracy).mean(axis=0)
    low, high = nan_interval(cost)  # an unpriced group gets a NaN interval
    return groups.assign(front_share=share, cost_low=low, cost_high=high)


def _on_front(cost: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """B×G booleans: not beaten by another group on both axes (one strictly) in that draw."""
    c_i, c_j = cost[:, :, None], cost[:, None, :]
    a_i, a_j = accuracy[:, :, None], accuracy[:, None, :]
    beaten = ((c_j <= c_i) & (a_j >= a_i) & ((c_j < c_i) | (a_j > a_i))).any(axis=2)
    return ~beaten & ~np.isnan(cost) & ~np.isnan(accuracy)
