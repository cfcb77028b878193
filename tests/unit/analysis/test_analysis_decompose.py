"""Harness vs model on any crossed sweep: planted effects come back exactly, with intervals around them."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.decompose import crossed_grid, harness_model_effects

PLANTED = {("a", "m1"): 60, ("a", "m2"): 40, ("b", "m1"): 40, ("b", "m2"): 20}  # passes of 100 tasks


def _rows() -> pd.DataFrame:
    rows = [{"claw": claw, "model": model, "task_id": f"t{t:03d}", "passed": t < passes, "cost_usd": float("nan")}
            for (claw, model), passes in PLANTED.items() for t in range(100)]
    rows += [{"claw": "c", "model": "m1", "task_id": f"t{t:03d}", "passed": True, "cost_usd": float("nan")}
             for t in range(100)]  # a third claw with one model: not part of the crossed grid
    return pd.DataFrame(rows).astype({"passed": "boolean"})


def test_grid_is_the_largest_fully_crossed_block():
    assert crossed_grid(_rows()) == (["a", "b"], ["m1", "m2"])
    assert crossed_grid(_rows()[lambda f: f["claw"] != "b"]) is None


def test_planted_main_effects_without_interaction():
    effects, cells = harness_model_effects(_rows(), n_boot=300)
    effects = effects.set_index("effect")
    assert effects.loc["harness", "pp"] == pytest.approx(20.0)
    assert effects.loc["model", "pp"] == pytest.approx(20.0)
    assert effects.loc["interaction", "pp"] == pytest.approx(0.0, abs=1e-9)
    assert (effects["ci_low_pp"] <= effects["pp"] + 1e-9).all() and (effects["pp"] <= effects["ci_high_pp"] + 1e-9).all()
    assert effects.loc["harness", "ci_high_pp"] > effects.loc["harness", "ci_low_pp"]
    assert effects.loc["harness", "statement"].startswith("Harness choice moves pass@1 by 20.0 pp [")
    assert "(a best, b worst of a, b)" in effects.loc["harness", "statement"]
    assert len(cells) == 4 and cells.set_index(["claw", "model"]).loc[("a", "m1"), "pass_at_1"] == pytest.approx(0.6)
