"""Night-over-night regressions: a real drop is reported, a wobble inside the CI is not, and
more errors are reported apart from accuracy."""

from __future__ import annotations

import pandas as pd

from analysis.regression import regressions


def _night(results: list[bool | None], claw: str = "ref") -> pd.DataFrame:
    return pd.DataFrame({
        "claw": claw, "model": "m", "task_id": [f"t{i}" for i in range(len(results))],
        "passed": pd.array(results, dtype="boolean"),
    })


def test_a_clear_drop_is_a_regression():
    lines = regressions(_night([True] * 10), _night([True] * 2 + [False] * 8))
    assert len(lines) == 1 and "ref × m: pass@1 1.00 → 0.20" in lines[0]


def test_a_one_task_wobble_is_not():
    # 0.5 → 0.3 is past the 0.10 threshold, but with 10 tasks tonight's CI still reaches 0.5
    assert regressions(_night([True] * 5 + [False] * 5), _night([True] * 3 + [False] * 7)) == []


def test_more_errors_are_reported_apart():
    lines = regressions(_night([True, True, True]), _night([True, True, None]))
    assert lines == ["ref × m: errors 0 → 1"]


def test_no_baseline_means_nothing_to_report():
    assert regressions(_night([]).iloc[:0], _night([True])) == []
