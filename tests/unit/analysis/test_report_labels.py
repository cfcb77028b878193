"""Scatter-plot labels with many configurations: no two label boxes overlap, none covers a point or
leaves the axes (measured from each rendered figure's renderer, at screen and PNG resolution),
and every configuration is still identifiable: named at its point, or numbered at its point with
that number's line in the key naming it. A few configurations are all named, with no key."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
import pytest
from matplotlib.text import Text

from analysis.pareto import on_front
from analysis.report import plots

CLAWS = ("openclaw", "nanobot", "hermes", "edict", "zeroclaw", "genericagent", "mini-swe-agent", "reference")
MODELS = ("scripted/demo-small-{task_id}", "scripted/demo-large-{task_id}", "opus", "gpt-5", "glm-4.6", "qwen3")


def crowded_points() -> pd.DataFrame:
    """48 configurations on a 2-task grid of pass rates (so many share a row), several sharing
    one exact spot, costs in a narrow band: what a real sweep's plot looks like."""
    rng = np.random.default_rng(7)
    points = pd.DataFrame([{"claw": c, "model": m} for c, m in itertools.product(CLAWS, MODELS)])
    points["pass_at_1"] = rng.choice([0.0, 0.5, 1.0], len(points))
    points["mean_cost"] = rng.uniform(0.004, 0.02, len(points)).round(4)
    points.loc[:3, ["mean_cost", "pass_at_1"]] = [0.002, 0.5]  # four configurations on one spot
    points["mean_tokens"] = points["mean_cost"] * 7e5
    points["on_front"] = on_front(points)
    return points


def _boxes_and_key(fig):
    """(label annotations of the scatter with their text boxes, {number: name} of the key)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    labels = [(t, Text.get_window_extent(t, renderer)) for t in ax.texts]
    key = {}
    if len(fig.axes) > 1:
        for line in (t.get_text() for t in fig.axes[1].get_legend().get_texts()):
            number, name = re.fullmatch(r"(\d+)  (.+)", line).groups()
            key[number] = name
    return ax, renderer, labels, key


def _check_no_collisions(fig, points: pd.DataFrame, x: str) -> None:
    ax, renderer, labels, _ = _boxes_and_key(fig)
    frame = ax.get_window_extent(renderer)
    for (a, box_a), (b, box_b) in itertools.combinations(labels, 2):
        assert not box_a.overlaps(box_b), (a.get_text(), b.get_text())
    radius = np.sqrt(36) / 2 * fig.dpi / 72  # the markers: s=36 pt², a 6 pt disc
    centres = ax.transData.transform(points[[x, "pass_at_1"]].to_numpy(dtype=float))
    for text, box in labels:
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, text.get_text()
        for cx, cy in centres:  # the disc's bounding square stays clear of every box
            assert box.x1 < cx - radius or box.x0 > cx + radius or box.y1 < cy - radius or box.y0 > cy + radius, \
                (text.get_text(), cx, cy)


def _check_identifiable(fig, points: pd.DataFrame, x: str, named: set[str]) -> None:
    ax, _, labels, key = _boxes_and_key(fig)
    names = (points["claw"] + " × " + points["model"]).tolist()
    assert sorted(key.values()) == sorted(names) and len(key) == len(names)  # each once
    number_of = {name: number for number, name in key.items()}
    at = {}
    for text, _ in labels:
        at.setdefault(tuple(np.round(text.xy, 9)), []).append(text.get_text())
    for name, xv, yv in zip(names, points[x], points["pass_at_1"]):
        shown = at.get(tuple(np.round((xv, yv), 9)), [])
        assert name in shown or number_of[name] in shown, (name, shown)
        if name in named:
            assert name in shown, f"front configuration {name} is not named on the plot"


@pytest.mark.parametrize("dpi", [100, 120])  # the screen's and build_report's PNG resolution
def test_many_configurations_get_labels_that_do_not_collide(dpi):
    points = crowded_points()
    front = points[points["on_front"]].sort_values("mean_cost")
    for fig, x in ((plots.cost_accuracy(points, front), "mean_cost"), (plots.tokens_accuracy(points), "mean_tokens")):
        fig.set_dpi(dpi)
        _check_no_collisions(fig, points, x)
        plots.plt.close(fig)


def test_every_configuration_is_identifiable_and_the_front_is_named():
    points = crowded_points()
    front = points[points["on_front"]].sort_values("mean_cost")
    assert 2 <= len(front) < len(points) // 4  # a crowded plot with a real front
    fig = plots.cost_accuracy(points, front)
    _check_identifiable(fig, points, "mean_cost", set(front["claw"] + " × " + front["model"]))
    _, _, labels, _ = _boxes_and_key(fig)
    assert len(labels) == len(points)  # one label per point, nothing left unlabelled
    plots.plt.close(fig)


def test_a_few_configurations_are_all_named_without_a_key():
    points = pd.DataFrame({"claw": ["a", "b", "c"], "model": ["m", "m", "n"], "pass_at_1": [0.2, 0.6, 0.9],
                           "mean_cost": [0.01, 0.02, 0.04]})
    points["on_front"] = on_front(points)
    fig = plots.cost_accuracy(points, points[points["on_front"]])
    ax, _, labels, key = _boxes_and_key(fig)
    assert key == {} and len(fig.axes) == 1
    assert sorted(t.get_text() for t, _ in labels) == ["a × m", "b × m", "c × n"]
    plots.plt.close(fig)
