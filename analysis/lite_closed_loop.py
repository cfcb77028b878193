"""A Lite subset of a closed-loop table, stratified by capability × language, and how well it stands
in for the full set on setups (claw × model columns) it never saw.

Selection reuses the patch-track search (`analysis.lite.select_lite`: random restarts improved by
within-stratum swaps minimising rate gap + rank flips + log-cost gap) with one quota per
capability × language stratum. Validation, both reported:
- leave-one-model-out: for each model, choose the subset without that model's setups, then score
  those setups on it; every setup gets a Lite rate from a subset that never saw it, and the
  held-out Lite rates are compared with the full rates (Kendall τ-b, |gap| in points);
- fixed split: setups ordered by full pass rate, every other one held out (the 2nd, 4th, …);
  choose on the rest, compare on the held-out half.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass


import pandas as pd

from analysis.compare import kendall_tau_b
from analysis.lite import calibration_matrices, select_lite


@dataclass(frozen=True)
class Fit:
    """How Lite rates of `setups` match their full rates."""

    setups: int
    tau_b: float
    mean_abs_gap_pp: float
    max_abs_gap_pp: float


@dataclass(frozen=True)
class ClosedLoopLite:
    task_ids: list[str]
    tasks_full: int
    strata: dict[str, int]
    in_sample: Fit
    leave_one_model_out: Fit
    fixed_split: Fit

    def as_json(self) -> dict:
        held = self.leave_one_model_out
        return {"size": len(self.task_ids), "tasks": self.task_ids, "tasks_full": self.tasks_full,
                "tau_b_heldout": held.tau_b, "mean_abs_gap_pp": held.mean_abs_gap_pp,
                "max_abs_gap_pp": held.max_abs_gap_pp, "strata": self.strata,
                "validation": {"leave_one_model_out": asdict(held), "fixed_split": asdict(self.fixed_split),
                               "in_sample": asdict(self.in_sample)}}

    def summary_lines(self) -> list[str]:
        lines = [f"Lite: {len(self.task_ids)} of {self.tasks_full} tasks, {len(self.strata)} capability × language strata"]
        for name, fit in (("held out, leave-one-model-out", self.leave_one_model_out),
                          ("held out, fixed split", self.fixed_split), ("in sample", self.in_sample)):
            lines.append(f"{name}: τ-b {fit.tau_b:.3f} over {fit.setups} setups · mean |gap| {fit.mean_abs_gap_pp:.2f} pp"
                         f" · max |gap| {fit.max_abs_gap_pp:.2f} pp")
        return lines


def strata_of(frame: pd.DataFrame, tasks: pd.Index) -> pd.Series:
    """`capability|language` per task (first value its rows carry)."""
    labels = frame.groupby("task_id")[["capability", "language"]].first().reindex(tasks)
    if labels.isna().any(axis=None):
        missing = labels.index[labels.isna().any(axis=1)][0]
        raise ValueError(f"task {missing}: closed-loop Lite needs capability and language on every row")
    return labels["capability"].astype(str) + "|" + labels["language"].astype(str)


def equal_quotas(strata: pd.Series, size: int) -> dict[str, int]:
    names = sorted(strata.unique())
    if size % len(names):
        raise ValueError(f"--size {size} must be a multiple of the {len(names)} capability × language strata")
    return {name: size // len(names) for name in names}


def fit(full: pd.Series, lite: pd.Series) -> Fit:
    gap = (lite - full).abs() * 100
    return Fit(len(full), kendall_tau_b(full, lite), float(gap.mean()), float(gap.max()))


def select_closed_loop(frame: pd.DataFrame, *, size: int, seed: int = 0, restarts: int = 12) -> ClosedLoopLite:
    rates, costs = calibration_matrices(frame)
    rates = rates.dropna(axis=0, how="any")  # tasks every setup measured
    costs = costs.reindex_like(rates)
    strata = strata_of(frame, rates.index)
    quotas = equal_quotas(strata, size)
    full = rates.mean(axis=0)

    def choose(columns: Sequence[str]) -> list[str]:
        return select_lite(rates[list(columns)], costs[list(columns)], strata, quotas, restarts=restarts, seed=seed).task_ids

    chosen = choose(rates.columns)
    models = frame.groupby(frame[["claw", "model"]].astype(str).agg(" × ".join, axis=1))["model"].first().astype(str)
    held = pd.Series(index=rates.columns, dtype=float)
    for model in sorted(models.reindex(rates.columns).unique()):
        out = models.index[models == model].intersection(rates.columns)
        subset = choose([c for c in rates.columns if c not in out])
        held[out] = rates.loc[subset, out].mean(axis=0)
    ordered = full.sort_values(ascending=False).index
    test, train = ordered[1::2], ordered[0::2]
    split_lite = rates.loc[choose(train), test].mean(axis=0)
    return ClosedLoopLite(chosen, len(rates), quotas, fit(full, rates.loc[chosen].mean(axis=0)),
                          fit(full, held), fit(full[test], split_lite))


def calibration_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """Closed-loop rows of real claws only (sanity baselines would rank trivially)."""
    rows = rows[rows["track"] == "closed_loop"]
    return rows[~rows["claw"].isin(("oracle", "nop"))]



