"""What ran, what failed to measure, what is missing: counts that sit beside every metric.

Missing is not zero: a cell the sweep planned but that has no row is shown as `missing`, an
error row as its status, and neither ever enters a pass-rate denominator.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis.metrics import GROUP

IDENTITY = ("sweep_id", "cell_key")


def with_missing(frame: pd.DataFrame, expected: pd.DataFrame) -> pd.DataFrame:
    """`frame` plus one placeholder row (status `missing`, passed null, score NaN) for every
    expected cell (`sweep_id`, `cell_key` and any label columns such as claw/model/task_id)
    that has no row."""
    have = pd.MultiIndex.from_frame(frame[list(IDENTITY)]) if len(frame) else pd.MultiIndex.from_tuples([], names=IDENTITY)
    wanted = pd.MultiIndex.from_frame(expected[list(IDENTITY)])
    absent = expected[~wanted.isin(have)]
    placeholders = absent.assign(status="missing", error_kind="missing", passed=pd.NA, score=float("nan"))
    placeholders = placeholders.astype({"passed": "boolean"})
    return pd.concat([frame, placeholders], ignore_index=True) if len(frame) else placeholders.reset_index(drop=True)


def status_counts(frame: pd.DataFrame, by: Sequence[str] = GROUP) -> pd.DataFrame:
    """Rows per group × status (one column per status seen), plus `total`."""
    counts = frame.groupby([*by, "status"], observed=True).size().unstack("status", fill_value=0)
    counts["total"] = counts.sum(axis=1)
    return counts.reset_index()
