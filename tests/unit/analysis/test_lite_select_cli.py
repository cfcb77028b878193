"""`clawmark lite select` from a calibration table with a planted subset that ranks like the full set."""

from __future__ import annotations

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from analysis.lite import calibration_matrices, objective
from analysis.lite_select import scaled_pattern, select_from_rows
from clawmark.cli.main import app


def _calibration(path):
    """40 tasks × 4 columns over two languages; columns a > b > c > d on every task of the planted
    half (t00–t09 and t20–t29), noise on the rest."""
    rng = np.random.default_rng(3)
    rows = []
    for t in range(40):
        planted = t % 20 < 10
        for rank, column in enumerate("abcd"):
            rate = 0.8 - 0.2 * rank if planted else rng.random()
            for seed in range(2):
                rows.append({"claw": column, "model": "m", "task_id": f"t{t:02d}", "seed": seed,
                             "language": "py" if t < 20 else "go", "passed": bool(rng.random() < rate),
                             "cost_usd": 0.1 * (rank + 1)})
    frame = pd.DataFrame(rows).astype({"passed": "boolean"})
    frame.to_parquet(path)
    return frame


def test_scaled_pattern():
    assert scaled_pattern(10) == (2, 3, 3, 2)
    assert scaled_pattern(4) == (1, 1, 1, 1) and sum(scaled_pattern(7)) == 7


def test_selection_is_at_least_as_good_as_the_planted_subset_and_seeded(tmp_path):
    frame = _calibration(tmp_path / "cal.parquet")
    first = select_from_rows(frame, size=20, seed=5)
    assert first.task_ids == select_from_rows(frame, size=20, seed=5).task_ids
    rates, costs = calibration_matrices(frame)
    planted = np.array([int(t[1:]) % 20 < 10 for t in rates.index])
    assert first.selection.objective <= sum(objective(rates.to_numpy(), costs.to_numpy(), planted)) + 1e-9
    assert len(first.task_ids) == 20 and -1.0 <= first.tau <= 1.0


def test_cli_prints_gaps_and_writes_ids(tmp_path):
    _calibration(tmp_path / "cal.parquet")
    result = CliRunner().invoke(app, ["lite", "select", "--calibration", str(tmp_path / "cal.parquet"),
                                      "--size", "20", "--seed", "1", "--out", str(tmp_path / "ids.txt")])
    assert result.exit_code == 0, result.output
    assert "Kendall tau-b" in result.output and "rank flips" in result.output
    assert len((tmp_path / "ids.txt").read_text().split()) == 20
    odd = CliRunner().invoke(app, ["lite", "select", "--calibration", str(tmp_path / "cal.parquet"), "--size", "21"])
    assert odd.exit_code != 0
