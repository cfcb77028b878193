"""Lite subset selection: a small task subset that ranks and prices columns like the full set.

Claw-SWE-Bench's Lite-80 (patch-tasks.md): quotas per (language, difficulty quartile), chosen
to minimise  mean |resolve rate Lite − Full| over calibration columns
           + share of column pairs whose order flips between Lite and Full
           + mean |log mean cost Lite − log mean cost Full|,
by random restarts, each improved by swaps inside a stratum until no swap helps.

Inputs are matrices over tasks × columns (a column = one claw × model), built from result rows
by `calibration_matrices`. Everything is seeded: the same inputs and seed give the same subset.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.metrics import GROUP


@dataclass(frozen=True)
class LiteSelection:
    task_ids: list[str]
    objective: float
    rate_gap: float
    flip_share: float
    log_cost_gap: float


def calibration_matrices(frame: pd.DataFrame, by: Sequence[str] = GROUP) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(resolve rate, mean priced cost) as tasks × columns frames from result rows; error rows
    are left out of the rates, unpriced rows out of the costs."""
    keyed = frame.assign(column=frame[list(by)].astype(str).agg(" × ".join, axis=1),
                         rate=frame["passed"].astype("Float64").astype(float))
    rates = keyed.pivot_table(index="task_id", columns="column", values="rate", aggfunc="mean", observed=True)
    costs = keyed.pivot_table(index="task_id", columns="column", values="cost_usd", aggfunc="mean", observed=True)
    return rates, costs.reindex_like(rates)


def quartile_quotas(rates: pd.DataFrame, language: pd.Series, per_language: int = 10,
                    pattern: Sequence[int] = (2, 3, 3, 2)) -> tuple[pd.Series, dict[str, int]]:
    """Stratum `"<language>|<quartile>"` per task (quartile 0 = hardest by mean rate within its
    language) and quotas {stratum: n} following `pattern` (which must sum to `per_language`)."""
    if sum(pattern) != per_language:
        raise ValueError(f"quartile pattern {list(pattern)} does not sum to {per_language}")
    ease = rates.mean(axis=1)
    lang = language.reindex(ease.index).astype(str)
    position = ease.groupby(lang).rank(method="first") - 1  # 0 = hardest task of its language
    quartile = (position / lang.map(lang.value_counts()) * len(pattern)).astype(int)
    strata = lang + "|" + quartile.astype(str)
    quotas = {f"{name}|{q}": n for name in sorted(set(lang)) for q, n in enumerate(pattern)}
    return strata, quotas


def objective(rates: np.ndarray, costs: np.ndarray, chosen: np.ndarray) -> tuple[float, float, float]:
    """(rate gap, flip share, log-cost gap) of the `chosen` rows (bool mask) against all rows."""
    full, lite = np.nanmean(rates, axis=0), np.nanmean(rates[chosen], axis=0)
    rate_gap = float(np.nanmean(np.abs(lite - full)))
    upper = np.triu_indices(len(full), k=1)
    flips = (np.sign(full[:, None] - full[None, :]) * np.sign(lite[:, None] - lite[None, :]))[upper] < 0
    flip_share = float(flips.mean()) if flips.size else 0.0
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # unpriced columns (all-NaN cost): no cost gap
        log_gap = np.abs(np.log(np.nanmean(costs[chosen], axis=0)) - np.log(np.nanmean(costs, axis=0)))
    log_cost_gap = float(np.nanmean(log_gap)) if np.isfinite(log_gap).any() else 0.0
    return rate_gap, flip_share, log_cost_gap


def select_lite(rates: pd.DataFrame, costs: pd.DataFrame, strata: pd.Series, quotas: Mapping[str, int], *,
                restarts: int = 20, max_swaps: int = 2000, seed: int = 0) -> LiteSelection:
    """Best subset over `restarts` random starts, each improved by within-stratum swaps."""
    tasks = rates.index
    r, c = rates.to_numpy(dtype=float), costs.reindex_like(rates).to_numpy(dtype=float)
    groups = {s: np.flatnonzero(strata.reindex(tasks).to_numpy() == s) for s in quotas}
    for s, n in quotas.items():
        if len(groups[s]) < n:
            raise ValueError(f"stratum {s} has {len(groups[s])} tasks, quota is {n}")
    rng = np.random.default_rng(seed)
    best_mask, best_score = None, np.inf
    for _ in range(restarts):
        mask, score = _improve(r, c, _random_start(len(tasks), groups, quotas, rng), groups, rng, max_swaps)
        if score < best_score:
            best_mask, best_score = mask, score
    parts = objective(r, c, best_mask)
    return LiteSelection(sorted(map(str, tasks[best_mask])), best_score, *parts)


def _random_start(n: int, groups: Mapping[str, np.ndarray], quotas: Mapping[str, int], rng) -> np.ndarray:
    mask = np.zeros(n, dtype=bool)
    for s, k in quotas.items():
        mask[rng.choice(groups[s], size=k, replace=False)] = True
    return mask


def _improve(r, c, mask, groups, rng, max_swaps):
    """First-improvement local search: try random in/out swaps within a stratum."""
    score, stale = sum(objective(r, c, mask)), 0
    for _ in range(max_swaps):
        members = groups[rng.choice(list(groups))]
        inside, outside = members[mask[members]], members[~mask[members]]
        if not inside.size or not outside.size:
            stale += 1
        else:
            trial = mask.copy()
            trial[rng.choice(inside)], trial[rng.choice(outside)] = False, True
            trial_score = sum(objective(r, c, trial))
            if trial_score < score - 1e-12:
                mask, score, stale = trial, trial_score, 0
            else:
                stale += 1
        if stale > 10 * len(mask):
            break
    return mask, score
