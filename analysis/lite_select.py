"""Lite selection from a calibration sweep's rows: quotas for the requested size, the subset,
and how well it stands in for the full set (resolve-rate gap, rank flips, log-cost gap and
Kendall's tau of the column order, Lite against Full)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.compare import kendall_tau_b
from analysis.lite import LiteSelection, calibration_matrices, quartile_quotas, select_lite
from analysis.load import load_rows

QUARTILE_PATTERN = (2, 3, 3, 2)


@dataclass
class LiteResult:
    selection: LiteSelection
    tasks_full: int
    columns: int
    tau: float
    mean_full: float
    mean_lite: float

    @property
    def task_ids(self) -> list[str]:
        return self.selection.task_ids

    def summary_lines(self) -> list[str]:
        s = self.selection
        return [f"Lite: {len(s.task_ids)} of {self.tasks_full} tasks over {self.columns} calibration columns",
                f"mean pass@1: full {self.mean_full:.3f} · lite {self.mean_lite:.3f}",
                f"mean |resolve-rate gap|: {s.rate_gap * 100:.2f} points",
                f"pairwise rank flips: {s.flip_share * 100:.1f} % of column pairs",
                f"mean |log cost gap|: {s.log_cost_gap:.3f}",
                f"Kendall tau-b (column order, lite vs full): {self.tau:.3f}",
                *(f"  {task}" for task in s.task_ids)]


def scaled_pattern(per_language: int, pattern: tuple[int, ...] = QUARTILE_PATTERN) -> tuple[int, ...]:
    """`pattern` scaled to sum to `per_language` by largest remainders (2/3/3/2 for 10)."""
    raw = np.array(pattern, dtype=float) * per_language / sum(pattern)
    counts = np.floor(raw).astype(int)
    for index in np.argsort(-(raw - counts), kind="stable")[: per_language - counts.sum()]:
        counts[index] += 1
    return tuple(int(c) for c in counts)


def select_from_rows(source: str | Path | pd.DataFrame, *, size: int, seed: int = 0, restarts: int = 20) -> LiteResult:
    frame = load_rows(source)
    rates, costs = calibration_matrices(frame)
    language = frame.groupby("task_id")["language"].first().fillna("unknown")
    languages = sorted(language.reindex(rates.index).astype(str).unique())
    if size % len(languages):
        raise ValueError(f"--size {size} must be a multiple of the {len(languages)} languages ({', '.join(languages)})")
    per_language = size // len(languages)
    strata, quotas = quartile_quotas(rates, language, per_language, scaled_pattern(per_language))
    selection = select_lite(rates, costs, strata, quotas, restarts=restarts, seed=seed)
    full, lite = rates.mean(axis=0), rates.loc[selection.task_ids].mean(axis=0)
    return LiteResult(selection, len(rates), rates.shape[1], kendall_tau_b(full, lite),
                      float(full.mean()), float(lite.mean()))
