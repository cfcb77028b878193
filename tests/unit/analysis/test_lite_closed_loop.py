"""Closed-loop Lite: quotas per capability × language, validation on setups the selection did not
see, and the shipped UniClawBench Lite suite is what the selection picks on the published table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from analysis.lite_closed_loop import select_closed_loop, steepest_swaps
from clawmark.cli.main import app
from tests.support.published_tables import imported_store

SUITE = "tasks_catalog/suites/uniclawbench-lite-80.yaml"


def _table() -> pd.DataFrame:
    """40 tasks in 4 strata × 6 setups (2 claws × 3 models); setup ability + task ease decide passes."""
    rng = np.random.default_rng(5)
    ease = rng.normal(0, 1, 40)
    rows = []
    for claw_i, claw in enumerate(("a", "b")):
        for model_i, model in enumerate(("m1", "m2", "m3")):
            for t in range(40):
                p = 1 / (1 + np.exp(-(ease[t] + 0.4 * model_i + 0.3 * claw_i - 0.6)))
                rows.append({"track": "closed_loop", "claw": claw, "model": model, "task_id": f"t{t:02d}",
                             "capability": ("skill", "explore")[t % 2], "language": ("en", "zh")[(t // 2) % 2],
                             "passed": bool(rng.random() < p), "cost_usd": np.nan})
    return pd.DataFrame(rows).astype({"passed": "boolean"})


def test_quota_per_stratum_and_held_out_figures():
    frame = _table()
    lite = select_closed_loop(frame, size=8, restarts=3)
    strata = frame.drop_duplicates("task_id").set_index("task_id")
    chosen = strata.loc[lite.task_ids]
    assert chosen.groupby(["capability", "language"]).size().tolist() == [2, 2, 2, 2]
    out = lite.as_json()
    assert {"size", "tasks", "tau_b_heldout", "mean_abs_gap_pp", "max_abs_gap_pp"} <= set(out)
    assert out["size"] == 8 and out["tau_b_heldout"] == lite.leave_one_model_out.tau_b
    assert (lite.leave_one_model_out.setups, lite.fixed_split.setups, lite.in_sample.setups) == (6, 3, 6)
    assert lite.in_sample.mean_abs_gap_pp <= lite.leave_one_model_out.mean_abs_gap_pp  # seen setups fit better
    assert set(out["ceiling"]) == {"bootstrap_tau_b_median", "bootstrap_share_tau_b_ge_095", "tau_b_at_gap_floor",
                                   "gap_sd_for_tau_b_095_pp"} and -1 <= out["ceiling"]["bootstrap_tau_b_median"] <= 1
    with pytest.raises(ValueError, match="multiple of the 4"):
        select_closed_loop(frame, size=6)


def test_held_out_figures_over_seeds_start_with_the_chosen_seed():
    frame = _table()
    lite = select_closed_loop(frame, size=8, seed=2, restarts=2, validation_seeds=3)
    over = lite.as_json()["validation_over_seeds"]
    assert over["seeds"] == [2, 3, 4] and len(over["lomo_tau_b"]) == len(over["fixed_split_tau_b"]) == 3
    assert (over["lomo_tau_b"][0], over["fixed_split_tau_b"][0]) == (lite.leave_one_model_out.tau_b, lite.fixed_split.tau_b)
    assert over["median_lomo_mean_abs_gap_pp"] == sorted(over["lomo_mean_abs_gap_pp"])[1]
    later = select_closed_loop(frame, size=8, seed=3, restarts=2)  # seed 3 alone gives the list's second figures
    assert (later.leave_one_model_out.tau_b, later.fixed_split.tau_b) == (over["lomo_tau_b"][1], over["fixed_split_tau_b"][1])
    assert any(line.startswith("over seeds 2–4") for line in lite.summary_lines())


def test_steepest_swaps_finds_a_planted_exact_subset():
    """Two strata; tasks 0 and 5 together have exactly the full column means: the search must find
    a subset with zero gap and no flip (objective 0)."""
    rates = np.array([[1, 0], [0, 0], [1, 1], [0, 1], [0, 0], [0, 1], [1, 1], [1, 0]], dtype=float)
    full = rates.mean(axis=0)
    mask = steepest_swaps(rates, np.array(list("aaaabbbb")), {"a": 1, "b": 1}, restarts=4, seed=0)
    assert mask.sum() == 2 and np.allclose(rates[mask].mean(axis=0), full)


def test_shipped_suite_is_the_selection_on_the_published_table(tmp_path):
    imported_store(tmp_path / "store")
    result = CliRunner().invoke(app, ["lite", "select", "--calibration", "ucb", "--results", str(tmp_path / "store"),
                                      "--size", "80", "--json"])
    assert result.exit_code == 0, result.output
    picked = json.loads(result.stdout)
    suite = yaml.safe_load(open(SUITE, encoding="utf-8"))
    assert picked["tasks"] == suite["tasks"] and picked["size"] == 80
    shipped = suite["validation"]
    for name in ("leave_one_model_out", "fixed_split", "in_sample"):
        assert {k: round(v, 4) for k, v in picked["validation"][name].items()} == shipped[name], name
    held = shipped["leave_one_model_out"]
    assert (picked["tau_b_heldout"], picked["mean_abs_gap_pp"], picked["max_abs_gap_pp"]) == pytest.approx(
        (held["tau_b"], held["mean_abs_gap_pp"], held["max_abs_gap_pp"]), abs=1e-4)
    assert {k: round(v, 4) for k, v in picked["ceiling"].items()} == shipped["ceiling"]
    # the goal (held-out τ-b ≥ 0.95) is out of reach on this table: its own ranking rarely survives a task bootstrap
    assert picked["ceiling"]["bootstrap_share_tau_b_ge_095"] < 0.5 and picked["ceiling"]["tau_b_at_gap_floor"] < 0.95
