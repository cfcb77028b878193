"""Missing cells are shown and counted, never folded into a pass rate."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.coverage import status_counts, with_missing
from analysis.metrics import pass_at_1
from clawmark.results import ResultStore
from clawmark.results.synthetic import example_row


@pytest.fixture
def frame(tmp_path):
    store = ResultStore(tmp_path, fsync=False)
    store.write(example_row(task_id="t1"))
    store.write(example_row(task_id="t2", status="infra_error", score=float("nan")))
    return store.read()


def test_missing_cells_get_placeholders_that_stay_out_of_pass_rate(frame):
    ran = frame.loc[frame["task_id"] == "t1", "cell_key"].item()
    expected = pd.DataFrame({"sweep_id": ["sweep-1"] * 2, "cell_key": [ran, "f" * 16],
                             "claw": ["nop"] * 2, "model": ["scripted/demo"] * 2, "task_id": ["t1", "t3"]})
    full = with_missing(frame, expected)
    assert len(full) == 3 and sorted(full["status"]) == ["infra_error", "missing", "pass"]
    assert full.loc[full["status"] == "missing", "task_id"].item() == "t3"
    assert full["passed"].isna().sum() == 2
    line = pass_at_1(full, n_boot=50).iloc[0]
    assert line["pass_at_1"] == 1.0 and line["errors"] == 2 and line["tasks"] == 1


def test_status_counts(frame):
    counts = status_counts(frame).iloc[0]
    assert (counts["pass"], counts["infra_error"], counts["total"]) == (1, 1, 2)


def test_with_missing_on_an_empty_store():
    expected = pd.DataFrame({"sweep_id": ["s"], "cell_key": ["k"], "claw": ["c"], "model": ["m"], "task_id": ["t"]})
    out = with_missing(pd.DataFrame(columns=["sweep_id", "cell_key", "status", "passed"]), expected)
    assert list(out["status"]) == ["missing"] and out["passed"].isna().all()
