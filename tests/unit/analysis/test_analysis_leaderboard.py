"""The Claw-SWE-Bench leaderboard as points, and its Pareto fronts checked against the published
numbers by hand (patch-tasks.md and the JSON in shared/datasets/swebench/)."""

from __future__ import annotations

import pytest

from analysis.leaderboard import load_leaderboard
from analysis.pareto import pareto_front
from clawmark.catalog.errors import CatalogError
from tests.support.paths import SHARED_DATASETS

LEADERBOARD = SHARED_DATASETS / "swebench" / "claw_swe_bench_leaderboard.json"


def _front(comparison: str) -> list[tuple[str, str]]:
    points = load_leaderboard(LEADERBOARD)
    front = pareto_front(points[points["comparison"] == comparison], cost="total_cost")
    return list(zip(front["claw"], front["model"]))


def test_points_carry_published_numbers():
    points = load_leaderboard(LEADERBOARD).set_index(["comparison", "claw", "model"])
    assert points.loc[("OpenClaw harness", "OpenClaw", "GPT 5.5"), "pass_at_1"] == pytest.approx(0.780)
    assert points.loc[("OpenClaw harness", "OpenClaw", "GPT 5.5"), "total_cost"] == pytest.approx(1399.1)
    assert points.loc[("GLM 5.1", "Hermes-Agent", "GLM 5.1"), "pass_at_1"] == pytest.approx(0.711)


def test_openclaw_model_front_by_hand():
    # cheapest first: Flash 8.2/70.3; Seed 19.4/48.6 and Qwen 71.5/66.0 are beaten by Flash;
    # Pro 81.3/71.7; MiniMax 196.7/61.4 beaten; GLM 5.2 209.6/74.3; GLM 5.1 277/73.4 beaten by 5.2;
    # Kimi 633.7/66.9 beaten; Opus 1082/77.1; GPT 5.5 1399.1/78.0.
    assert [m for _, m in _front("OpenClaw harness")] == [
        "DeepSeek-V4 Flash", "DeepSeek-V4 Pro", "GLM 5.2", "Claude Opus 4.7", "GPT 5.5"]


def test_claw_fronts_by_hand():
    # GLM 5.1: GenericAgent 85.8/63.1, OpenClaw 277/73.4; Hermes 330.6/71.1, ZeroClaw, NanoBot beaten.
    assert [c for c, _ in _front("GLM 5.1")] == ["GenericAgent", "OpenClaw"]
    # Qwen 3.6-flash: GenericAgent 14.5/38.6, ZeroClaw 49.3/58.3, OpenClaw 71.5/66.0.
    assert [c for c, _ in _front("Qwen 3.6-flash")] == ["GenericAgent", "ZeroClaw", "OpenClaw"]


def test_bad_leaderboard_file_names_file_and_field(tmp_path):
    bad = tmp_path / "lb.json"
    bad.write_text('{"meta": {}}')
    with pytest.raises(CatalogError, match="lb.json.*sections"):
        load_leaderboard(bad)
