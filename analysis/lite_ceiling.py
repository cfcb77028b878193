"""How far any Lite subset can reproduce a table's ranking of setups, measured on the table itself.

A Lite subset is judged by Kendall τ-b of its setups' rates against the full rates. When setups sit
within a point or two of each other, that ranking is partly the tasks' luck, and no subset can be
held to reproduce it more faithfully than the table reproduces itself:
- `bootstrap_tau_b_*`: the full table's own ranking against the same table with its tasks resampled
  with replacement (a re-draw of as many tasks from the same population);
- `tau_b_at_gap_floor`: the median τ-b when every setup's rate moves by an independent normal gap of
  the held-out gap floor's size (what the setups a selection saw cannot predict);
- `gap_sd_for_tau_b_095_pp`: the largest such gap sd (pp, in 0.25 pp steps) up to which the median τ-b
  still reaches 0.95.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TARGET_TAU_B = 0.95


@dataclass(frozen=True)
class Ceiling:
    bootstrap_tau_b_median: float
    bootstrap_share_tau_b_ge_095: float
    tau_b_at_gap_floor: float
    gap_sd_for_tau_b_095_pp: float


def tau_b_rows(reference: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """τ-b of each row of `candidates` (B×S) against `reference` (S,)."""
    upper = np.triu_indices(len(reference), k=1)
    ref = np.sign(reference[upper[0]] - reference[upper[1]])
    other = np.sign(candidates[:, upper[0]] - candidates[:, upper[1]])
    denominator = np.sqrt((ref != 0).sum() * (other != 0).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (other * ref).sum(axis=1) / denominator


def ceiling(rates: np.ndarray, gap_floor_pp: float, *, resamples: int = 1000, seed: int = 0) -> Ceiling:
    """`rates`: tasks × setups outcomes (no missing cell)."""
    rng = np.random.default_rng(seed)
    full = rates.mean(axis=0)
    resampled = np.stack([rates[rng.integers(0, len(rates), len(rates))].mean(axis=0) for _ in range(resamples)])
    boot = tau_b_rows(full, resampled)
    noise = rng.standard_normal((resamples, len(full)))

    def median_tau(gap_sd_pp: float) -> float:
        return float(np.median(tau_b_rows(full, full + noise * gap_sd_pp / 100)))

    reaching = 0.0
    while reaching < 10 and median_tau(reaching + 0.25) >= TARGET_TAU_B:
        reaching += 0.25
    return Ceiling(float(np.median(boot)), float((boot >= TARGET_TAU_B).mean()), median_tau(gap_floor_pp), reaching)
