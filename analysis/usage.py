"""Cost, tokens and time per claw × model: what a configuration spends, role by role.

Tokens are summed over rows that collected them (null = not collected, never 0); cost per task is
the mean over priced attempts of each task, then averaged over tasks, so a task with more seeds
does not weigh more. The cache-hit rate is cached / input prompt tokens of all roles.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.metrics import GROUP
from clawmark.results.usage import ROLES


def tokens_per_role(frame: pd.DataFrame, by: Sequence[str] = GROUP) -> pd.DataFrame:
    """Long table: per group × role, mean input / cached / output tokens and cost per attempt."""
    parts = []
    for role in ROLES:
        cols = {kind: f"{role}_{kind}_tokens" for kind in ("input", "cached", "output")}
        work = frame[list(by)].copy()
        for kind, col in cols.items():
            work[kind] = frame[col].astype("Float64").astype(float)
        work["cost_usd"] = frame[f"{role}_cost_usd"].astype(float)
        work["calls"] = frame[f"{role}_calls"].astype("Float64").astype(float)
        means = work.groupby(list(by), observed=True, sort=True).mean().reset_index()
        parts.append(means.assign(role=role))
    table = pd.concat(parts, ignore_index=True)
    return table[table["calls"].fillna(0) > 0].reset_index(drop=True)


def cost_summary(frame: pd.DataFrame, by: Sequence[str] = GROUP) -> pd.DataFrame:
    """Per group: cost per task, cache-hit rate, mean wall seconds, mean executor turns."""
    input_cols = [f"{r}_input_tokens" for r in ROLES]
    cached_cols = [f"{r}_cached_tokens" for r in ROLES]
    work = pd.DataFrame({
        **{col: frame[col] for col in (*by, "task_id")},
        "cost": frame["cost_usd"].astype(float),
        "input": frame[input_cols].astype("Float64").astype(float).sum(axis=1, min_count=1),
        "cached": frame[cached_cols].astype("Float64").astype(float).sum(axis=1, min_count=1),
        "wall": frame["wall_total_s"].astype(float),
        "turns": frame["turns"].astype("Float64").astype(float),
    })
    per_task = work.groupby([*by, "task_id"], observed=True).agg(cost=("cost", "mean"))
    cost_per_task = per_task.groupby(list(by), observed=True)["cost"].mean()
    sums = work.groupby(list(by), observed=True).agg(
        input=("input", _sum_known), cached=("cached", _sum_known), wall=("wall", "mean"), turns=("turns", "mean"))
    with np.errstate(invalid="ignore", divide="ignore"):
        hit = sums["cached"] / sums["input"].where(sums["input"] > 0)
    out = pd.DataFrame({"cost_per_task": cost_per_task, "cache_hit_rate": hit,
                        "mean_wall_s": sums["wall"], "mean_turns": sums["turns"]})
    return out.reset_index()


def known_mean_total(keys: pd.DataFrame, values: pd.Series) -> pd.DataFrame:
    """Per group of `keys`' columns: `mean` over the known values, `total` (NaN as soon as one
    value is unknown: a partly unknown sum is unknown, never a lower bound read as the figure)
    and `unknown`, the count of NaN values."""
    by = list(keys.columns)
    work = keys.assign(value=values.astype(float), unknown=values.isna().astype(int))
    out = work.groupby(by, observed=True, sort=True).agg(
        mean=("value", "mean"), total=("value", "sum"), unknown=("unknown", "sum"))
    out["total"] = out["total"].where(out["unknown"] == 0)
    return out


def _sum_known(values: pd.Series) -> float:
    """Sum of collected counts; NaN (not 0) when none was collected, so an unknown cache-hit rate is not 0."""
    return values.sum(min_count=1)
