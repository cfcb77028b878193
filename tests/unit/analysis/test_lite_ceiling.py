"""The τ-b ceiling of a Lite subset, measured on the table itself: a table whose setups are cleanly
separated reproduces its ranking under task bootstrap; one whose setups are alike does not."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.compare import kendall_tau_b
from analysis.lite_ceiling import ceiling, tau_b_rows


def test_tau_b_rows_matches_kendall_tau_b_with_ties():
    rng = np.random.default_rng(2)
    reference = np.array([0.5, 0.4, 0.4, 0.2, 0.1])
    candidates = rng.integers(0, 4, (20, 5)) / 4  # many ties on both sides
    expected = [kendall_tau_b(pd.Series(reference), pd.Series(row)) for row in candidates]
    assert np.allclose(tau_b_rows(reference, candidates), expected, equal_nan=True)


def test_separated_setups_reach_the_ceiling_and_alike_setups_do_not():
    tasks = np.arange(400)[:, None]
    separated = (tasks < np.array([40, 120, 200, 280, 360])).astype(float)  # every setup passes a nested, larger set
    top = ceiling(separated, gap_floor_pp=1.0, resamples=300)
    assert top.bootstrap_tau_b_median == 1.0 and top.bootstrap_share_tau_b_ge_095 == 1.0
    assert top.tau_b_at_gap_floor == 1.0 and top.gap_sd_for_tau_b_095_pp >= 5  # 20 pp apart: big gaps keep the order
    alike = (np.random.default_rng(0).random((400, 5)) < np.array([0.30, 0.31, 0.32, 0.33, 0.34])).astype(float)
    low = ceiling(alike, gap_floor_pp=3.0, resamples=300)
    assert low.bootstrap_tau_b_median < 0.8 and low.bootstrap_share_tau_b_ge_095 < 0.3
    assert low.gap_sd_for_tau_b_095_pp < top.gap_sd_for_tau_b_095_pp and low.tau_b_at_gap_floor < 0.95
