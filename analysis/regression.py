"""Night-over-night regressions: which claw × model got worse between two sweeps.

A drop counts when pass@1 fell by more than `drop` AND tonight's upper CI bound lies below last
night's point estimate, so a one-task wobble on a small suite is not paged as a regression. More
error rows than before is reported separately: it is the infrastructure, not the claw.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis.metrics import GROUP, pass_at_1

DEFAULT_DROP = 0.10


def regressions(before: pd.DataFrame, after: pd.DataFrame, *, drop: float = DEFAULT_DROP,
                by: Sequence[str] = GROUP) -> list[str]:
    """One line per claw × model present in both sweeps that regressed."""
    if before.empty or after.empty:
        return []
    joined = pass_at_1(before, by).merge(pass_at_1(after, by), on=list(by), suffixes=("_before", ""))
    lines = []
    for row in joined.itertuples(index=False):
        name = " × ".join(str(getattr(row, col)) for col in by)
        fell = row.pass_at_1_before - row.pass_at_1
        if fell > drop and row.ci_high < row.pass_at_1_before:
            lines.append(f"{name}: pass@1 {row.pass_at_1_before:.2f} → {row.pass_at_1:.2f} "
                         f"(95% CI {row.ci_low:.2f}–{row.ci_high:.2f})")
        if row.errors > row.errors_before:
            lines.append(f"{name}: errors {row.errors_before} → {row.errors}")
    return lines
