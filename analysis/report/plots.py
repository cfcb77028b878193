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
from matplotlib.lines import Line2D  # noqa: E402

from analysis.pareto import pareto_front  # noqa: E402
from analysis.report.labels import FONT_SIZE, RINGS_PT, place_labels  # noqa: E402

plt.rcParams.update({"svg.hashsalt": "clawmark", "font.size": 9, "axes.grid": True, "grid.alpha": 0.3})
MARKER_PT = 6  # scatter marker diameter


def label(frame: pd.DataFrame) -> pd.Series:
    return frame["claw"].astype(str) + " × " + frame["model"].astype(str)


def leaderboard(points: pd.DataFrame) -> Figure | None:
    """Horizontal bars of pass@1 with the bootstrap interval, best on top."""
    rows = points.dropna(subset=["pass_at_1"]).sort_values("pass_at_1")
    if rows.empty:
        return None
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.2))
    y = np.arange(len(rows))
    ax.barh(y, rows["pass_at_1"], color="#4C72B0")
    # An interval spanning all of [0, 1] (too few tasks) says nothing: written out, not drawn as a line.
    empty = (rows["ci_low"] <= 0) & (rows["ci_high"] >= 1) | rows["ci_low"].isna()
    shown = rows[~empty]
    err = np.vstack([shown["pass_at_1"] - shown["ci_low"], shown["ci_high"] - shown["pass_at_1"]]).clip(min=0)
    ax.errorbar(shown["pass_at_1"], y[~empty.to_numpy()], xerr=err, fmt="none", ecolor="#222", capsize=3)
    for yi, value in zip(y[empty.to_numpy()], rows["pass_at_1"][empty]):
        ax.text(value + 0.01, yi, "interval 0–1: too few tasks", va="center", fontsize=FONT_SIZE, color="#555")
    ax.set_yticks(y, label(rows))
    ax.set_xlim(0, 1)
    ax.set_xlabel("pass@1 (95% bootstrap CI over tasks)")
    fig.tight_layout()
    return fig


def _scatter_front(points: pd.DataFrame, x: str, xlabel: str, front: pd.DataFrame | None) -> Figure | None:
    """Points named where the names fit; when they do not all fit, the front keeps its names, the
    rest get their number in a key beside the axes (numbered best pass@1 first)."""
    rows = points.dropna(subset=[x, "pass_at_1"]).sort_values(["pass_at_1", x], ascending=[False, True])
    if rows.empty:
        return None
    names = label(rows).tolist()
    key_names = set(label(front if front is not None else pareto_front(rows, cost=x)))
    order = sorted(range(len(rows)), key=lambda i: names[i] not in key_names)  # front first, then by rank
    xy = [(rows[x].iloc[i], rows["pass_at_1"].iloc[i]) for i in order]
    fig, ax = _scatter_axes(rows, x, xlabel, front, key=None)
    if all(place_labels(ax, xy, [[names[i]] for i in order], marker_pt=MARKER_PT, rings=RINGS_PT[:2])):
        return fig
    plt.close(fig)
    fig, ax = _scatter_axes(rows, x, xlabel, front, key=[f"{n}  {name}" for n, name in enumerate(names, 1)])
    choices = [[names[i], str(i + 1)] if names[i] in key_names else [str(i + 1)] for i in order]
    place_labels(ax, xy, choices, marker_pt=MARKER_PT)
    return fig


def _scatter_axes(rows: pd.DataFrame, x: str, xlabel: str, front: pd.DataFrame | None,
                  key: list[str] | None) -> tuple[Figure, plt.Axes]:
    """The laid-out scatter (points, front, scale), with a key column when `key` is given."""
    if key is None:
        fig, ax = plt.subplots(figsize=(7, 4.5))
    else:
        key_width = 0.3 + 0.047 * max(map(len, key))  # inches: 7 pt text runs about 0.045 in a character
        fig, (ax, key_ax) = plt.subplots(1, 2, figsize=(7 + key_width, max(4.5, 0.19 * len(key) + 1.2)),
                                         gridspec_kw={"width_ratios": [7, key_width]})
        key_ax.axis("off")
        key_ax.legend([Line2D([], [], linestyle="none")] * len(key), key, loc="upper left", frameon=False,
                      fontsize=FONT_SIZE, handlelength=0, handletextpad=0, borderaxespad=0, title="key")
    ax.scatter(rows[x], rows["pass_at_1"], s=MARKER_PT**2, color="#4C72B0", zorder=3)
    if front is not None and not front.empty:
        ax.step(front[x], front["pass_at_1"], where="post", color="#C44E52", label="Pareto front", zorder=2)
        ax.legend(loc="lower right", bbox_to_anchor=(1, 1), borderaxespad=0.2, frameon=False)  # above: no point hidden
    if (rows[x] > 0).all() and rows[x].max() / max(rows[x].min(), 1e-12) > 50:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("pass@1")
    ax.set_ylim(-0.02, 1.02)
    fig.tight_layout()
    return fig, ax


def cost_accuracy(points: pd.DataFrame, front: pd.DataFrame) -> Figure | None:
    return _scatter_front(points, "mean_cost", "mean cost per attempt (USD)", front)


def tokens_accuracy(points: pd.DataFrame, front: pd.DataFrame | None = None) -> Figure | None:
    return _scatter_front(points, "mean_tokens", "mean tokens per attempt (all roles)", front)


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
