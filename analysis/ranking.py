"""Rankings of claw x model groups by pass@1, and how stable they are under the task bootstrap.

Ranks are competition ranks ("1224"): 1 + the number of groups strictly better, so tied
groups share the better rank. A group with no measured task has no rank (NaN). Stability is
read from paired bootstrap draws (`analysis.bootstrap`): a rank interval per group, the share
of draws it ranks first, and the mean Kendall tau-a between each draw's order and the point
order (1 = the order never changes; ties in a draw count 0 for that pair).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.bootstrap import nan_interval, paired_draws, task_matrices, weighted_mean
from analysis.metrics import GROUP


def competition_ranks(accuracy: np.ndarray) -> np.ndarray:
    """…×G accuracies → …×G ranks (1 = best); NaN accuracy → NaN rank."""
    better = (accuracy[..., None, :] > accuracy[..., :, None]).sum(axis=-1)
    return np.where(np.isnan(accuracy), np.nan, better + 1.0)


def rank_stability(frame: pd.DataFrame, by: Sequence[str] = GROUP, *, n_boot: int = 1000,
                   seed: int = 0) -> pd.DataFrame:
    """Per group: `pass_at_1`, `rank`, bootstrap `rank_low`/`rank_high` (95 %), `p_first`;
    sorted by rank."""
    rates, _, groups = task_matrices(frame, by)
    point = weighted_mean(np.ones((1, rates.shape[1])), rates)[0]
    drawn = competition_ranks(weighted_mean(paired_draws(rates.shape[1], n_boot, seed), rates))
    low, high = nan_interval(drawn)
    table = groups.assign(pass_at_1=point, rank=competition_ranks(point), rank_low=low, rank_high=high,
                          p_first=(drawn == 1).mean(axis=0))
    return table.sort_values(["rank", *by], na_position="last").reset_index(drop=True)


def rank_agreement(frame: pd.DataFrame, by: Sequence[str] = GROUP, *, n_boot: int = 1000, seed: int = 0) -> float:
    """Mean Kendall tau-a between the point order and each bootstrap draw's order."""
    rates, _, _ = task_matrices(frame, by)
    point = weighted_mean(np.ones((1, rates.shape[1])), rates)[0]
    drawn = weighted_mean(paired_draws(rates.shape[1], n_boot, seed), rates)
    upper = np.triu_indices(len(point), k=1)
    if not upper[0].size:
        return float("nan")
    point_sign = np.sign(point[:, None] - point[None, :])[upper]
    draw_sign = np.sign(drawn[:, :, None] - drawn[:, None, :])[:, upper[0], upper[1]]
    return float(np.nanmean(np.nanmean(point_sign * draw_sign, axis=1)))

