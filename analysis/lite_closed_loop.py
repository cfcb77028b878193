"""A Lite subset of a closed-loop table, stratified by capability × language, and how well it stands
in for the full set on setups (claw × model columns) it never saw.

Selection minimises the patch track's objective (`analysis.lite.objective`: rate gap + share of
setup pairs whose order flips; closed-loop tables rarely have cost) with one quota per
capability × language stratum, by steepest descent over within-stratum swaps from random starts:
every step scores all swaps at once from running column sums (the published table has no
missing cell, so a subset's rates are sums over its tasks). Validation, both reported:
- leave-one-model-out: for each model, choose the subset without that model's setups, then score
  those setups on it; every setup gets a Lite rate from a subset that never saw it, and the
  held-out Lite rates are compared with the full rates (Kendall τ-b, |gap| in points);
- fixed split: setups ordered by full pass rate, every other one held out (the 2nd, 4th, …);
  choose on the rest, compare on the held-out half.
No subset can predict the part of a held-out setup's per-task outcomes that the seen setups do not
explain linearly; `gap_floor_pp` is that part's standard deviation over a subset of this size
(least squares on the other models' setups, finite-population corrected), averaged over setups —
the held-out |gap| any selection should expect; `analysis.lite_ceiling` turns it, and the table's
own reproducibility under task bootstrap, into the τ-b any selection can be held to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np


import pandas as pd

from analysis.compare import kendall_tau_b
from analysis.lite import calibration_matrices
from analysis.lite_ceiling import Ceiling, ceiling


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
    gap_floor_pp: float
    ceiling: Ceiling
    over_seeds: dict[str, list]  # held-out figures of the selection re-run with seeds seed, seed+1, …

    def as_json(self) -> dict:
        held = self.leave_one_model_out
        return {"size": len(self.task_ids), "tasks": self.task_ids, "tasks_full": self.tasks_full,
                "tau_b_heldout": held.tau_b, "mean_abs_gap_pp": held.mean_abs_gap_pp,
                "max_abs_gap_pp": held.max_abs_gap_pp, "gap_floor_pp": self.gap_floor_pp, "strata": self.strata,
                "validation": {"leave_one_model_out": asdict(held), "fixed_split": asdict(self.fixed_split),
                               "in_sample": asdict(self.in_sample)}, "ceiling": asdict(self.ceiling),
                "validation_over_seeds": {**self.over_seeds, **{f"median_{k}": float(np.median(v))
                                                                for k, v in self.over_seeds.items() if k != "seeds"}}}

    def summary_lines(self) -> list[str]:
        lines = [f"Lite: {len(self.task_ids)} of {self.tasks_full} tasks, {len(self.strata)} capability × language strata"]
        for name, fit in (("held out, leave-one-model-out", self.leave_one_model_out),
                          ("held out, fixed split", self.fixed_split), ("in sample", self.in_sample)):
            lines.append(f"{name}: τ-b {fit.tau_b:.3f} over {fit.setups} setups · mean |gap| {fit.mean_abs_gap_pp:.2f} pp"
                         f" · max |gap| {fit.max_abs_gap_pp:.2f} pp")
        lines.append(f"held-out gap floor: sd {self.gap_floor_pp:.2f} pp of what the seen setups cannot predict")
        if len(runs := self.over_seeds["seeds"]) > 1:
            tau, gap = self.over_seeds["lomo_tau_b"], self.over_seeds["lomo_mean_abs_gap_pp"]
            lines.append(f"over seeds {runs[0]}–{runs[-1]}, leave-one-model-out: median τ-b {np.median(tau):.3f}"
                         f" [{min(tau):.3f}, {max(tau):.3f}] · median mean |gap| {np.median(gap):.2f} pp · fixed split:"
                         f" median τ-b {np.median(self.over_seeds['fixed_split_tau_b']):.3f}")
        top = self.ceiling
        lines.append(f"ceiling: the full table's own ranking under task bootstrap has median τ-b {top.bootstrap_tau_b_median:.3f}"
                     f" (≥ 0.95 in {top.bootstrap_share_tau_b_ge_095:.0%} of resamples); gaps at the floor give median τ-b"
                     f" {top.tau_b_at_gap_floor:.3f}; median τ-b ≥ 0.95 needs held-out gaps of sd ≤ {top.gap_sd_for_tau_b_095_pp:.2f} pp")
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


def select_closed_loop(frame: pd.DataFrame, *, size: int, seed: int = 0, restarts: int = 12,
                       validation_seeds: int = 1) -> ClosedLoopLite:
    """The subset chosen on every setup with `seed`, validated held out with `seed` and, since one
    subset's held-out figures swing with the search's seed, with the next `validation_seeds - 1` seeds."""
    rates, _ = calibration_matrices(frame)
    rates = rates.dropna(axis=0, how="any")  # tasks every setup measured
    strata = strata_of(frame, rates.index)
    quotas = equal_quotas(strata, size)
    full = rates.mean(axis=0)
    models = frame.groupby(frame[["claw", "model"]].astype(str).agg(" × ".join, axis=1))["model"].first().astype(str)

    def choose(columns: Sequence[str], run_seed: int) -> list[str]:
        mask = steepest_swaps(rates[list(columns)].to_numpy(float), strata.to_numpy(), quotas, restarts=restarts,
                              seed=run_seed)
        return sorted(map(str, rates.index[mask]))

    def held_out(run_seed: int) -> tuple[Fit, Fit]:
        """(leave-one-model-out, fixed split): every subset chosen without the setups it is scored on."""
        held = pd.Series(index=rates.columns, dtype=float)
        for model in sorted(models.reindex(rates.columns).unique()):
            out = models.index[models == model].intersection(rates.columns)
            held[out] = rates.loc[choose([c for c in rates.columns if c not in out], run_seed), out].mean(axis=0)
        ordered = full.sort_values(ascending=False).index
        test, train = ordered[1::2], ordered[0::2]
        return fit(full, held), fit(full[test], rates.loc[choose(train, run_seed), test].mean(axis=0))

    chosen = choose(rates.columns, seed)
    runs = {run: held_out(run) for run in range(seed, seed + max(validation_seeds, 1))}
    over_seeds = {"seeds": list(runs), "lomo_tau_b": [lomo.tau_b for lomo, _ in runs.values()],
                  "lomo_mean_abs_gap_pp": [lomo.mean_abs_gap_pp for lomo, _ in runs.values()],
                  "fixed_split_tau_b": [split.tau_b for _, split in runs.values()]}
    floor = gap_floor(rates, models, size)
    return ClosedLoopLite(chosen, len(rates), quotas, fit(full, rates.loc[chosen].mean(axis=0)), *runs[seed], floor,
                          ceiling(rates.to_numpy(float), floor, seed=seed), over_seeds)


def gap_floor(rates: pd.DataFrame, models: pd.Series, size: int) -> float:
    """Mean over setups of the sd of a `size`-task subset mean of what the other models' setups do
    not predict (least-squares residual of the setup's task outcomes)."""
    values, owner = rates.to_numpy(float), models.reindex(rates.columns).to_numpy()
    n, spreads = len(values), []
    for j in range(values.shape[1]):
        design = np.c_[np.ones(n), values[:, owner != owner[j]]]
        coef, *_ = np.linalg.lstsq(design, values[:, j], rcond=None)
        spreads.append((values[:, j] - design @ coef).std())
    return float(np.mean(spreads) * np.sqrt(max(1 / size - 1 / n, 0.0)) * 100)


def _score(sums: np.ndarray, pair_sums: np.ndarray, size: int, full: np.ndarray, order: np.ndarray) -> np.ndarray:
    """…×S subset column sums and …×P sums of setup-pair differences → … objective:
    mean |rate gap| + share of setup pairs whose order flips."""
    gap = np.abs(sums / size - full).mean(axis=-1)
    return gap + (np.sign(pair_sums) * order < 0).mean(axis=-1)


def steepest_swaps(rates: np.ndarray, strata: np.ndarray, quotas: dict[str, int], *, restarts: int, seed: int,
                   max_steps: int = 400) -> np.ndarray:
    """Boolean task mask: per restart, a random start meeting the quotas, then the best
    within-stratum swap (all scored at once) until none improves; the best restart wins."""
    rng, full, size = np.random.default_rng(seed), rates.mean(axis=0), sum(quotas.values())
    upper = np.triu_indices(rates.shape[1], k=1)
    pairs = rates[:, upper[0]] - rates[:, upper[1]]  # per task, its share of each setup pair's difference
    order = np.sign(full[upper[0]] - full[upper[1]])
    members = {name: np.flatnonzero(strata == name) for name in quotas}
    best_mask, best = None, np.inf
    for _ in range(restarts):
        mask = np.zeros(len(rates), dtype=bool)
        for name, k in quotas.items():
            mask[rng.choice(members[name], size=k, replace=False)] = True
        sums, pair_sums = rates[mask].sum(axis=0), pairs[mask].sum(axis=0)
        score = _score(sums, pair_sums, size, full, order)
        for _ in range(max_steps):
            outs, ins = [], []
            for group in members.values():
                inside, outside = group[mask[group]], group[~mask[group]]
                outs.append(np.repeat(inside, len(outside)))
                ins.append(np.tile(outside, len(inside)))
            out, into = np.concatenate(outs), np.concatenate(ins)
            trial = _score(sums - rates[out] + rates[into], pair_sums - pairs[out] + pairs[into], size, full, order)
            pick = int(np.argmin(trial))
            if trial[pick] >= score - 1e-12:
                break
            mask[out[pick]], mask[into[pick]] = False, True
            sums, pair_sums, score = sums - rates[out[pick]] + rates[into[pick]], pair_sums - pairs[out[pick]] + pairs[into[pick]], trial[pick]
        if score < best:
            best_mask, best = mask.copy(), score
    return best_mask


def calibration_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """Closed-loop rows of real claws only (sanity baselines would rank trivially)."""
    rows = rows[rows["track"] == "closed_loop"]
    return rows[~rows["claw"].isin(("oracle", "nop"))]



