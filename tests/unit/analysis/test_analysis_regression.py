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


def test_compare_nights_pairs_cells_and_names_the_test():
    from analysis.regression import compare_nights, drop_p_value, evidence_markdown

    before, after = _night([True] * 6 + [False]), _night([False] * 5 + [True] * 2)
    result = compare_nights(before, after)
    (row,) = result.configs.itertuples(index=False)
    # t0..t4 drop, t5 stays, t6 gains: P(X >= 5 | n = 6) = (6 + 1) / 64
    assert (row.shared, row.drops, row.gains) == (7, 5, 1)
    assert row.p_value == drop_p_value(5, 1) == 7 / 64 and not row.regression
    assert sorted(result.changed["task_id"]) == ["t0", "t1", "t2", "t3", "t4", "t6"]
    text = evidence_markdown(result, "night-1", "night-2")
    assert "sign test" in text and "| ref | m | t6 | fail → pass |" in text


def test_five_drops_and_no_gain_is_significant():
    from analysis.regression import compare_nights

    result = compare_nights(_night([True] * 5), _night([False] * 5))
    assert result.configs["regression"].tolist() == [True]  # p = 1/32
