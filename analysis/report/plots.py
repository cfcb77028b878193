"""The report's figures, one function each, from the summary tables (never from raw rows).

Each returns a matplotlib Figure or None when the sweep has nothing to show for it (e.g. no
closed-loop rows: no follow-up plot). Rendering is headless (Agg) and deterministic.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

plt.rcParams.update({"svg.hashsalt": "clawmark", "font.size": 9, "axes.grid": True, "grid.alpha": 0.3})


def label(frame: pd.DataFrame) -> pd.Series:
    return frame["claw"].astype(str) + " × " + frame["model"].astype(str)


def leaderboard(points: pd.DataFrame) -> Figure | None:
    """Horizontal bars of pass@1 with the bootstrap interval, best on top."""
    rows = points.dropna(subset=["pass_at_1"]).sort_values("pass_at_1")
    if rows.empty:
        return None
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.2))
    y = np.arange(len(rows))
    err = np.vstack([rows["pass_at_1"] - rows["ci_low"], rows["ci_high"] - rows["pass_at_1"]]).clip(min=0)
    ax.barh(y, rows["pass_at_1"], xerr=err, color="#4C72B0", ecolor="#222", capsize=3)
    ax.set_yticks(y, label(rows))
    ax.set_xlim(0, 1)
    ax.set_xlabel("pass@1 (95% bootstrap CI over tasks)")
    fig.tight_layout()
    return fig


def _scatter_front(points: pd.DataFrame, x: str, xlabel: str, front: pd.DataFrame | None) -> Figure | None:
    rows = points.dropna(subset=[x, "pass_at_1"])
    if rows.empty:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.scatter(rows[x], rows["pass_at_1"], s=36, color="#4C72B0", zorder=3)
    for (_, row), name in zip(rows.iterrows(), label(rows)):
        ax.annotate(name, (row[x], row["pass_at_1"]), textcoords="offset points", xytext=(4, 4), fontsize=7)
    if front is not None and not front.empty:
        ax.step(front[x], front["pass_at_1"], where="post", color="#C44E52", label="Pareto front", zorder=2)
        ax.legend(loc="lower right")
    if (rows[x] > 0).all() and rows[x].max() / max(rows[x].min(), 1e-12) > 50:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("pass@1")
    ax.set_ylim(-0.02, 1.02)
    fig.tight_layout()
    return fig


def cost_accuracy(points: pd.DataFrame, front: pd.DataFrame) -> Figure | None:
    return _scatter_front(points, "mean_cost", "mean cost per attempt (USD)", front)


def tokens_accuracy(points: pd.DataFrame) -> Figure | None:
    return _scatter_front(points, "mean_tokens", "mean tokens per attempt (all roles)", None)


def heatmap(table: pd.DataFrame, dimension: str) -> Figure | None:
    """pass@1 per claw × model (rows) and `dimension` value (columns)."""
    if table.empty:
        return None
    grid = table.assign(config=label(table)).pivot_table(index="config", columns=dimension, values="pass_at_1")
    fig, ax = plt.subplots(figsize=(1.1 * grid.shape[1] + 3.5, 0.45 * grid.shape[0] + 1.5))
    image = ax.imshow(grid.to_numpy(dtype=float), vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(grid.shape[1]), grid.columns, rotation=30, ha="right")
    ax.set_yticks(range(grid.shape[0]), grid.index)
    ax.grid(False)
    for (i, j), value in np.ndenumerate(grid.to_numpy(dtype=float)):
        if not np.isnan(value):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", color="white" if value < 0.6 else "black")
    fig.colorbar(image, ax=ax, label="pass@1")
    fig.tight_layout()
    return fig


def followup(gain: pd.DataFrame) -> Figure | None:
    """Pass rate after turn 1, 2, 3 … per configuration."""
    if gain.empty:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, rows in gain.assign(config=label(gain)).groupby("config"):
        ax.plot(rows["turn"], rows["pass_rate"], marker="o", label=name)
    ax.set_xticks(sorted(gain["turn"].unique()))
    ax.set_xlabel("executor turn (1 = before any follow-up)")
    ax.set_ylabel("pass rate by this turn")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def cost_per_role(roles: pd.DataFrame) -> Figure | None:
    """Stacked bars: mean USD per attempt of each role, per configuration."""
    if roles.empty or roles["cost_usd"].notna().sum() == 0:
        return None
    grid = roles.assign(config=label(roles)).pivot_table(index="config", columns="role", values="cost_usd",
                                                         aggfunc="sum").fillna(0.0)
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(grid) + 1.4))
    left = np.zeros(len(grid))
    for role in grid.columns:
        ax.barh(grid.index, grid[role], left=left, label=role)
        left += grid[role].to_numpy()
    ax.set_xlabel("mean USD per attempt")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
