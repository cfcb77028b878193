"""Comparisons a leaderboard needs: is A really better than B, do two rankings agree, do two
judges agree.

- `paired_comparison`: two configurations on the tasks both measured. Each task contributes the
  sign of (A's pass rate − B's); the exact two-sided sign test on the tasks that differ is the
  exact McNemar test when every task has one trial. A paired task bootstrap gives the interval
  of the pass@1 difference. `all_pairs` runs it over every pair with Holm's step-down correction.
- `kendall_tau_b`: agreement of two rankings over the items both rank (tau-b handles ties).
- `judge_agreement`: the same cells judged twice (e.g. two supervisor models): share of equal
  pass/fail decisions, Cohen's kappa, mean absolute score difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from analysis.bootstrap import task_matrices
from analysis.metrics import GROUP

TEST_NAME = "exact sign test on per-task outcomes (exact McNemar for one trial per task)"
CELL = ("task_id", "claw", "model", "seed")


def sign_test_p(wins: int, losses: int) -> float:
    """Two-sided exact binomial p-value of `wins` vs `losses` under p = 1/2 (1.0 when no pair differs)."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def _compare_rates(rate_a: np.ndarray, rate_b: np.ndarray, *, n_boot: int, seed: int, alpha: float) -> dict:
    """Per-task pass rates of A and B (NaN = not measured) → the comparison over shared tasks."""
    shared = ~np.isnan(rate_a) & ~np.isnan(rate_b)
    diff = rate_a[shared] - rate_b[shared]
    wins, losses = int((diff > 0).sum()), int((diff < 0).sum())
    low = high = math.nan
    if diff.size:
        draws = np.random.default_rng(seed).integers(0, diff.size, size=(n_boot, diff.size))
        low, high = (float(v) for v in np.percentile(diff[draws].mean(axis=1), [2.5, 97.5]))
    p_value = sign_test_p(wins, losses)
    return {"tasks": int(diff.size),
            "pass_a": float(rate_a[shared].mean()) if diff.size else math.nan,
            "pass_b": float(rate_b[shared].mean()) if diff.size else math.nan,
            "difference": float(diff.mean()) if diff.size else math.nan, "ci_low": low, "ci_high": high,
            "a_better": wins, "b_better": losses, "ties": int(diff.size - wins - losses),
            "p_value": p_value, "test": TEST_NAME, "significant": bool(p_value < alpha)}


def _rates(frame: pd.DataFrame, by: Sequence[str]) -> tuple[np.ndarray, list[tuple]]:
    rates, _, groups = task_matrices(frame, by)
    return rates, [tuple(row) for row in groups.itertuples(index=False)]


def paired_comparison(frame: pd.DataFrame, a: Sequence[str], b: Sequence[str], by: Sequence[str] = GROUP, *,
                      n_boot: int = 2000, seed: int = 0, alpha: float = 0.05) -> dict:
    """A vs B over shared measured tasks: pass rates, difference with a bootstrap CI, wins / losses /
    ties, the sign-test p-value and whether it is significant at `alpha`."""
    rates, configs = _rates(frame, by)
    missing = [c for c in (tuple(a), tuple(b)) if c not in configs]
    if missing:
        raise KeyError(f"no measured rows for {' × '.join(map(str, missing[0]))}")
    result = _compare_rates(rates[configs.index(tuple(a))], rates[configs.index(tuple(b))],
                            n_boot=n_boot, seed=seed, alpha=alpha)
    return {"a": " × ".join(map(str, a)), "b": " × ".join(map(str, b)), **result}


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in the input order."""
    order = np.argsort(p_values, kind="stable")
    adjusted, running = [0.0] * len(p_values), 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def all_pairs(frame: pd.DataFrame, by: Sequence[str] = GROUP, *, alpha: float = 0.05, n_boot: int = 2000,
              seed: int = 0) -> pd.DataFrame:
    """Every pair of configurations measured on at least one common task, Holm-corrected;
    `significant` uses the adjusted p-value."""
    rates, configs = _rates(frame, by) if len(frame) else (np.zeros((0, 0)), [])
    shared = ~np.isnan(rates)
    results = [{"a": " × ".join(map(str, configs[i])), "b": " × ".join(map(str, configs[j])),
                **_compare_rates(rates[i], rates[j], n_boot=n_boot, seed=seed, alpha=alpha)}
               for i, j in combinations(range(len(configs)), 2)
               if (shared[i] & shared[j]).any()]  # no shared task (e.g. an imported leaderboard): no comparison
    table = pd.DataFrame(results, columns=None if results else ["a", "b", "p_value"])
    if results:
        table["p_holm"] = holm(table["p_value"].tolist())
        table["significant"] = table["p_holm"] < alpha
    return table


def kendall_tau_b(first: pd.Series, second: pd.Series) -> float:
    """tau-b between two scorings of the same items (higher = better); NaN with < 2 shared items."""
    shared = first.dropna().index.intersection(second.dropna().index)
    x, y = first.loc[shared].to_numpy(float), second.loc[shared].to_numpy(float)
    if len(shared) < 2:
        return math.nan
    upper = np.triu_indices(len(shared), k=1)
    dx, dy = np.sign(x[:, None] - x[None, :])[upper], np.sign(y[:, None] - y[None, :])[upper]
    concordance = float((dx * dy).sum())
    denominator = math.sqrt(float((dx != 0).sum()) * float((dy != 0).sum()))
    return concordance / denominator if denominator else math.nan


def judge_agreement(first: pd.DataFrame, second: pd.DataFrame) -> dict:
    """Two judgements of the same cells (matched on task, claw, model, seed; measured rows only)."""
    cols = [*CELL, "passed", "score"]
    joined = first[cols].merge(second[cols], on=list(CELL), suffixes=("_1", "_2"))
    joined = joined[joined["passed_1"].notna() & joined["passed_2"].notna()]
    if joined.empty:
        return {"cells": 0, "agreement": math.nan, "kappa": math.nan, "mean_abs_score_diff": math.nan}
    p1, p2 = joined["passed_1"].astype(bool), joined["passed_2"].astype(bool)
    observed = float((p1 == p2).mean())
    expected = float(p1.mean() * p2.mean() + (1 - p1.mean()) * (1 - p2.mean()))
    kappa = (observed - expected) / (1 - expected) if expected < 1 else math.nan
    score_diff = (joined["score_1"].astype(float) - joined["score_2"].astype(float)).abs()
    return {"cells": len(joined), "agreement": observed, "kappa": kappa,
            "mean_abs_score_diff": float(score_diff.mean())}
