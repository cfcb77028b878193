"""Harness vs model: on a crossed grid (every claw of a set run with every model of a set), split
the cell pass rates into a harness effect, a model effect and their interaction, each with a
task-bootstrap interval, and say in one sentence per effect what the data support.

With cell means μ[c, m] over the tasks every cell measured, grand mean μ, harness main effect
a[c] = mean_m μ[c, m] − μ, model main effect b[m] = mean_c μ[c, m] − μ and interaction
g[c, m] = μ[c, m] − μ − a[c] − b[m] (a two-way decomposition of task-level outcomes):
- harness effect = max a − min a: how far the choice of harness moves pass@1, averaged over models;
- model effect = max b − min b, likewise over harnesses;
- interaction = max |g|: the largest part of a cell no main effect explains.
Intervals: 95 % percentile over draws that resample tasks (shared by every cell, so paired).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from analysis.bootstrap import nan_interval, paired_draws, task_matrices, weighted_mean

MAX_CLAWS = 12  # subsets of claws are enumerated; a sweep with more claws uses the 12 with most models


def crossed_grid(frame: pd.DataFrame) -> tuple[list[str], list[str]] | None:
    """The largest set of claws × models (at least 2 × 2) with measured rows in every cell."""
    measured = frame[frame["passed"].notna()]
    cells = set(zip(measured["claw"].astype(str), measured["model"].astype(str)))
    models = sorted({m for _, m in cells})
    claws = sorted({c for c, _ in cells}, key=lambda c: (-sum((c, m) in cells for m in models), c))[:MAX_CLAWS]
    best: tuple[int, list[str], list[str]] | None = None
    for k in range(len(claws), 1, -1):
        for chosen in combinations(sorted(claws), k):
            shared = [m for m in models if all((c, m) in cells for c in chosen)]
            if len(shared) >= 2 and (best is None or k * len(shared) > best[0]):
                best = (k * len(shared), list(chosen), shared)
    return None if best is None else (best[1], best[2])


def _effects(cell_means: np.ndarray) -> np.ndarray:
    """…×C×M cell means → …×3 (harness range, model range, max |interaction|)."""
    grand = cell_means.mean(axis=(-2, -1), keepdims=True)
    harness = cell_means.mean(axis=-1, keepdims=True) - grand
    model = cell_means.mean(axis=-2, keepdims=True) - grand
    interaction = cell_means - grand - harness - model
    spread = lambda x: x.max(axis=(-2, -1)) - x.min(axis=(-2, -1))  # noqa: E731
    return np.stack([spread(harness), spread(model), np.abs(interaction).max(axis=(-2, -1))], axis=-1)


def harness_model_effects(frame: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(effects table: effect, pp, ci_low_pp, ci_high_pp, statement; cell table: claw, model, pass_at_1,
    harness_effect, model_effect, interaction). Both empty when the sweep has no crossed grid."""
    grid, none = crossed_grid(frame), (pd.DataFrame(columns=["effect", "pp", "ci_low_pp", "ci_high_pp", "statement"]),
                                       pd.DataFrame())
    if grid is None:
        return none
    claws, models = grid
    sub = frame[frame["claw"].astype(str).isin(claws) & frame["model"].astype(str).isin(models)]
    rates, _, groups = task_matrices(sub.assign(claw=sub["claw"].astype(str), model=sub["model"].astype(str)), ("claw", "model"))
    rates = rates[:, ~np.isnan(rates).any(axis=0)]  # tasks every cell measured
    if rates.shape[1] == 0:  # e.g. an imported leaderboard: no task is shared, nothing is crossed
        return none
    order = [list(zip(groups["claw"], groups["model"])).index((c, m)) for c in claws for m in models]
    rates = rates[order]
    point_cells = rates.mean(axis=1).reshape(len(claws), len(models))
    drawn = weighted_mean(paired_draws(rates.shape[1], n_boot, seed), rates).reshape(n_boot, len(claws), len(models))
    point, low, high = _effects(point_cells) * 100, *(v * 100 for v in nan_interval(_effects(drawn)))
    harness = point_cells.mean(axis=1) - point_cells.mean()
    model = point_cells.mean(axis=0) - point_cells.mean()
    sentences = _sentences(claws, models, harness, model, point, low, high, rates.shape[1])
    effects = pd.DataFrame({"effect": ["harness", "model", "interaction"], "pp": point, "ci_low_pp": low,
                            "ci_high_pp": high, "tasks": rates.shape[1], "statement": sentences})
    interaction = point_cells - point_cells.mean() - harness[:, None] - model[None, :]
    cell_low, cell_high = (v.reshape(len(claws), len(models)) for v in nan_interval(drawn.reshape(n_boot, -1)))
    cells = pd.DataFrame([{"claw": c, "model": m, "pass_at_1": point_cells[i, j], "ci_low": cell_low[i, j],
                           "ci_high": cell_high[i, j], "harness_effect": harness[i], "model_effect": model[j],
                           "interaction": interaction[i, j]}
                          for i, c in enumerate(claws) for j, m in enumerate(models)])
    return effects, cells


def _sentences(claws: Sequence[str], models: Sequence[str], harness, model, point, low, high, tasks: int) -> list[str]:
    best_c, worst_c = claws[int(np.argmax(harness))], claws[int(np.argmin(harness))]
    best_m, worst_m = models[int(np.argmax(model))], models[int(np.argmin(model))]
    span = f"[{{:.1f}}, {{:.1f}}] (95 % task bootstrap, {tasks} tasks)"
    return [
        f"Harness choice moves pass@1 by {point[0]:.1f} pp {span.format(low[0], high[0])} averaged over "
        f"{len(models)} models ({best_c} best, {worst_c} worst of {', '.join(claws)}).",
        f"Model choice moves pass@1 by {point[1]:.1f} pp {span.format(low[1], high[1])} averaged over "
        f"{len(claws)} harnesses ({best_m} best, {worst_m} worst).",
        f"The harness × model interaction shifts one cell by at most {point[2]:.1f} pp {span.format(low[2], high[2])} "
        f"beyond what the two main effects predict"
        + (" — smaller than both main effects." if high[2] < min(point[0], point[1]) else "."),
    ]
