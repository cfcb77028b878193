"""Lite subset selection: quotas hold, the objective is right by hand, the search finds a
zero-gap subset when one exists, and a seed fixes the answer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.lite import calibration_matrices, objective, quartile_quotas, select_lite

# six tasks in one stratum, two columns: full rates x = 1/2, y = 1/3
RATES = pd.DataFrame({"x": [1, 0, 1, 0, 1, 0], "y": [0, 1, 1, 0, 0, 0]}, index=[f"t{i}" for i in range(1, 7)], dtype=float)
COSTS = pd.DataFrame(1.0, index=RATES.index, columns=RATES.columns)


def test_objective_by_hand():
    r, c = RATES.to_numpy(), COSTS.to_numpy()
    chosen = np.array([True, False, True, False, False, False])  # lite rates (1, .5) vs full (.5, 1/3)
    rate_gap, flips, log_gap = objective(r, c, chosen)
    assert rate_gap == pytest.approx((0.5 + 1 / 6) / 2)
    assert flips == 0.0 and log_gap == 0.0  # x > y in both; equal costs
    flipped = np.array([False, True, False, True, False, False])  # lite (0, .5): y > x, full x > y
    assert objective(r, c, flipped)[1] == 1.0


def test_log_cost_gap_by_hand():
    costs = COSTS.copy()
    costs.loc["t1"] = 4.0  # full mean cost (4+5)/6 = 1.5; lite {t1, t2} mean 2.5
    chosen = np.array([True, True, False, False, False, False])
    assert objective(RATES.to_numpy(), costs.to_numpy(), chosen)[2] == pytest.approx(np.log(2.5 / 1.5))


def test_search_reaches_the_brute_force_optimum():
    strata = pd.Series("s", index=RATES.index)
    # the swap search must reach the brute-force optimum over all 20 three-task subsets
    result = select_lite(RATES, COSTS, strata, {"s": 3}, restarts=5, seed=0)
    assert len(result.task_ids) == 3
    brute = min(sum(objective(RATES.to_numpy(), COSTS.to_numpy(), _mask(combo)))
                for combo in _combinations(6, 3))
    assert result.objective == pytest.approx(brute)


def test_quotas_per_stratum_hold_and_seed_fixes_the_answer():
    rng = np.random.default_rng(0)
    rates = pd.DataFrame(rng.random((40, 4)), index=[f"t{i:02d}" for i in range(40)], columns=list("abcd"))
    costs = pd.DataFrame(rng.uniform(0.5, 2.0, (40, 4)), index=rates.index, columns=rates.columns)
    language = pd.Series(["py"] * 20 + ["go"] * 20, index=rates.index)
    strata, quotas = quartile_quotas(rates, language, per_language=10)
    assert quotas == {"go|0": 2, "go|1": 3, "go|2": 3, "go|3": 2, "py|0": 2, "py|1": 3, "py|2": 3, "py|3": 2}
    assert strata.value_counts().to_dict() == {s: 5 for s in quotas}
    first = select_lite(rates, costs, strata, quotas, restarts=3, max_swaps=300, seed=7)
    assert first == select_lite(rates, costs, strata, quotas, restarts=3, max_swaps=300, seed=7)
    chosen = strata[first.task_ids].value_counts().to_dict()
    assert chosen == {s: n for s, n in quotas.items()}


def test_hardest_tasks_land_in_quartile_zero():
    rates = pd.DataFrame({"a": [0.0, 0.1, 0.9, 1.0]}, index=["hard", "h2", "e2", "easy"])
    strata, _ = quartile_quotas(rates, pd.Series("py", index=rates.index), per_language=4, pattern=(1, 1, 1, 1))
    assert strata["hard"] == "py|0" and strata["easy"] == "py|3"


def test_calibration_matrices_from_rows():
    frame = pd.DataFrame({"claw": ["c", "c", "c"], "model": ["m", "m", "m"], "task_id": ["t1", "t1", "t2"],
                          "passed": pd.array([True, None, False], dtype="boolean"), "cost_usd": [1.0, 3.0, 2.0]})
    rates, costs = calibration_matrices(frame)
    assert rates.loc["t1", "c × m"] == 1.0 and rates.loc["t2", "c × m"] == 0.0  # the error row is left out
    assert costs.loc["t1", "c × m"] == 2.0


def test_quota_larger_than_stratum_is_refused():
    with pytest.raises(ValueError, match="quota"):
        select_lite(RATES, COSTS, pd.Series("s", index=RATES.index), {"s": 7})


def _combinations(n, k):
    from itertools import combinations

    return combinations(range(n), k)


def _mask(combo):
    mask = np.zeros(6, dtype=bool)
    mask[list(combo)] = True
    return mask
