"""Where tests find files by location, in one place, so a test's folder depth never matters.

The checkout's own folders hang off `REPO`. The shared datasets (the UniClawBench sample, the
published leaderboards) live beside the checkout: the nearest folder above it that holds them is
used, so the main checkout and a worktree one level deeper read the same files."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"


def beside_checkout(relative: str) -> Path:
    """`relative` in the nearest folder above the checkout that has it (else right beside it)."""
    return next((p / relative for p in REPO.parents if (p / relative).exists()), REPO.parent / relative)


SHARED_DATASETS = beside_checkout("shared/datasets")
UCB_SAMPLE = SHARED_DATASETS / "uniclawbench-sample"
