"""pass@1 broken down by one more dimension: capability, language, repository (category) or track."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis.metrics import GROUP, pass_at_1

DIMENSIONS: tuple[str, ...] = ("track", "capability", "language", "category")


def breakdown(frame: pd.DataFrame, dimension: str, by: Sequence[str] = GROUP, **ci_options) -> pd.DataFrame:
    """pass@1 with CI per group × value of `dimension` (rows where it is null are left out)."""
    if dimension not in frame.columns:
        raise KeyError(f"no column {dimension!r}; expected one of {list(DIMENSIONS)}")
    present = frame[frame[dimension].notna()]
    if present.empty:
        return pd.DataFrame(columns=[*by, dimension, "pass_at_1"])
    return pass_at_1(present, (*by, dimension), **ci_options)
