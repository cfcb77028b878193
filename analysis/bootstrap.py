"""Paired task bootstrap shared by the front and ranking analyses.

Every draw resamples the task list once (with replacement) and all groups are scored on that
same draw, so two claws are always compared on the same tasks. A group's value in a draw is
the mean of its per-task values over the drawn tasks it has (multiplicities as weights).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd


def task_matrices(frame: pd.DataFrame, by: Sequence[str]) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """(pass rate G×T over measured trials, mean priced cost G×T, group labels G rows).
    NaN where a group has no measured (resp. priced) trial of the task."""
    measured = frame["passed"].notna()
    work = pd.DataFrame({**{col: frame[col] for col in (*by, "task_id")},
                         "rate": frame["passed"].astype("Float64").where(measured).astype(float),
                         "cost": frame["cost_usd"].astype(float)})
    per_task = work.groupby([*by, "task_id"], observed=True).mean()
    rates = per_task["rate"].unstack("task_id")
    costs = per_task["cost"].unstack("task_id").reindex_like(rates)
    return rates.to_numpy(dtype=float), costs.to_numpy(dtype=float), rates.index.to_frame(index=False)


def paired_draws(n_tasks: int, n_boot: int, seed: int) -> np.ndarray:
    """B×T multiplicities: draw b takes task t `draws[b, t]` times (rows sum to T)."""
    if n_tasks == 0:
        return np.zeros((n_boot, 0))
    return np.random.default_rng(seed).multinomial(n_tasks, np.full(n_tasks, 1 / n_tasks), size=n_boot)


def weighted_mean(draws: np.ndarray, values: np.ndarray) -> np.ndarray:
    """B×T draw counts with G×T values (NaN = absent) → B×G means over present tasks."""
    present = ~np.isnan(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (draws @ np.where(present, values, 0.0).T) / (draws @ present.T.astype(float))


def nan_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Per-column percentile interval of B×G draws; NaN for a column with no value at all."""
    if values.shape[1] == 0:
        return np.array([]), np.array([])
    tail = (1 - confidence) / 2 * 100
    with warnings.catch_warnings():  # an all-NaN column (never measured) is a NaN interval, not noise
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanpercentile(values, [tail, 100 - tail], axis=0)
    return low, high
