"""Cost-vs-accuracy: per claw x model points and their Pareto front.

Cost per attempt is the mean `cost_usd` over priced rows; unpriced rows (NaN cost) are counted
in `unpriced` and never read as free, and the group's `total_cost` is NaN as soon as one is. A point with unknown cost or accuracy is not placed on
the front (it cannot be compared), but it stays in the points table.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.metrics import GROUP, pass_at_1


def cost_accuracy(frame: pd.DataFrame, by: Sequence[str] = GROUP, **ci_options) -> pd.DataFrame:
    """pass@1 (with CI) joined with mean cost per priced attempt and total cost, per group."""
    accuracy = pass_at_1(frame, by, **ci_options)
    priced = frame["cost_usd"].notna()
    work = pd.DataFrame({**{col: frame[col] for col in by}, "cost_usd": frame["cost_usd"],
                         "unpriced": (~priced).astype(int)})
    cost = work.groupby(list(by), observed=True, sort=True).agg(
        mean_cost=("cost_usd", "mean"), total_cost=("cost_usd", "sum"), unpriced=("unpriced", "sum"))
    cost["total_cost"] = cost["total_cost"].where(cost["unpriced"] == 0)  # partly unknown = unknown
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
