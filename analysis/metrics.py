"""Accuracy metrics over result rows (a DataFrame with the RESULTS_SCHEMA columns).

Conventions, the same in every function:
- A trial is one row. `passed` is null for error rows (infra, rate limit, harness, eval_error:
  what the world caused): they are counted in `errors` and left out of every denominator,
  never counted as fails. What the patch caused (empty_patch, apply_failed, eval_failed: tests
  timed out, errored, flooded the log, left no usable result) has `passed = False` and counts
  in every denominator (clawmark/results/status.py).
- Tasks weigh equally: per group, each task's success rate over its measured trials is
  averaged, and bootstrap intervals resample tasks (the unit that varies), seeded.
- pass@k (Chen et al. 2021, unbiased): chance that at least one of k trials drawn without
  replacement from a task's n measured trials passed, 1 - C(n-c, k) / C(n, k).
  pass^k (Yao et al. 2024, tau-bench): chance that all k such trials passed, C(c, k) / C(n, k).
  Tasks with fewer than k measured trials are left out and counted in `short_tasks`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import comb

import numpy as np
import pandas as pd

GROUP: tuple[str, ...] = ("claw", "model")


def task_trials(frame: pd.DataFrame, by: Sequence[str] = GROUP) -> pd.DataFrame:
    """One line per (group…, task_id): trials `n` measured, `c` passed, `errors`."""
    measured = frame["passed"].notna()
    work = pd.DataFrame({
        **{col: frame[col] for col in (*by, "task_id")},
        "n": measured.astype(int),
        "c": frame["passed"].fillna(False).astype(bool).astype(int),
        "errors": (~measured).astype(int),
    })
    return work.groupby([*by, "task_id"], observed=True, sort=True).sum().reset_index()


def bootstrap_ci(values: np.ndarray, *, confidence: float = 0.95, n_boot: int = 2000,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile interval of the mean by resampling `values`; NaNs when there are none."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return (np.nan, np.nan)
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, values.size, size=(n_boot, values.size))].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return (float(low), float(high))


def _per_group(tasks: pd.DataFrame, by: Sequence[str], summarise: Callable[[pd.DataFrame], dict]) -> pd.DataFrame:
    rows = []
    for key, group in tasks.groupby(list(by), observed=True, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, key)), **summarise(group)})
    return pd.DataFrame(rows, columns=None if rows else [*by])


def pass_at_1(frame: pd.DataFrame, by: Sequence[str] = GROUP, *, confidence: float = 0.95,
              n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Per group: `pass_at_1`, bootstrap `ci_low`/`ci_high`, `tasks`, `trials`, `errors`."""

    def summarise(group: pd.DataFrame) -> dict:
        measured = group[group["n"] > 0]
        rates = (measured["c"] / measured["n"]).to_numpy(dtype=float)
        low, high = bootstrap_ci(rates, confidence=confidence, n_boot=n_boot, seed=seed)
        return {"pass_at_1": rates.mean() if rates.size else np.nan, "ci_low": low, "ci_high": high,
                "tasks": len(measured), "trials": int(group["n"].sum()), "errors": int(group["errors"].sum())}

    return _per_group(task_trials(frame, by), by, summarise)


def pass_at_k(frame: pd.DataFrame, k: int, by: Sequence[str] = GROUP) -> pd.DataFrame:
    """Per group: unbiased `pass_at_k` (at least one of k passes) and `pass_hat_k` (all k pass)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")

    def summarise(group: pd.DataFrame) -> dict:
        enough = group[group["n"] >= k]
        n, c = enough["n"].to_numpy(), enough["c"].to_numpy()
        any_pass = [1 - comb(int(ni - ci), k) / comb(int(ni), k) for ni, ci in zip(n, c)]
        all_pass = [comb(int(ci), k) / comb(int(ni), k) for ni, ci in zip(n, c)]
        return {"k": k, "pass_at_k": np.mean(any_pass) if any_pass else np.nan,
                "pass_hat_k": np.mean(all_pass) if all_pass else np.nan,
                "tasks": len(enough), "short_tasks": len(group) - len(enough)}

    return _per_group(task_trials(frame, by), by, summarise)


def mean_score(frame: pd.DataFrame, by: Sequence[str] = GROUP) -> pd.DataFrame:
    """Per group: mean of `score` over scored rows; unscored (NaN) rows counted in `unscored`."""
    scored = frame["score"].notna()
    work = pd.DataFrame({**{col: frame[col] for col in by}, "score": frame["score"],
                         "scored": scored.astype(int), "unscored": (~scored).astype(int)})
    out = work.groupby(list(by), observed=True, sort=True).agg(
        mean_score=("score", "mean"), scored=("scored", "sum"), unscored=("unscored", "sum"))
    return out.reset_index()
