"""Night-over-night regressions: which claw × model got worse, tested on the cells both nights ran.

Cells are paired by `cell_key` (the same task, claw, model, seed and protocol: the key does not
depend on the sweep id) or, for tables without keys, by task and seed. Per configuration, a cell
that passed last night and fails tonight is a drop, the reverse a gain; a drop is a regression
when the one-sided exact sign test on drops vs gains is below `alpha` (the test is named in the
evidence). Error rows pair with nothing: more errors than before is reported apart, as it is the
infrastructure, not the claw.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from analysis.metrics import GROUP

TEST_NAME = "one-sided exact sign test on paired cells (drops vs gains)"
DEFAULT_ALPHA = 0.05


@dataclass
class NightComparison:
    configs: pd.DataFrame  # one row per configuration present both nights
    changed: pd.DataFrame  # one row per paired cell whose outcome changed

    @property
    def significant(self) -> pd.DataFrame:
        return self.configs[self.configs["regression"]] if len(self.configs) else self.configs


def drop_p_value(drops: int, gains: int) -> float:
    """P(at least `drops` of drops + gains changes are drops | a change is a coin flip)."""
    n = drops + gains
    return 1.0 if n == 0 else sum(math.comb(n, i) for i in range(drops, n + 1)) / 2 ** n


def _pair_keys(frame: pd.DataFrame) -> list[str]:
    if "cell_key" in frame and frame["cell_key"].notna().all():
        return ["cell_key"]
    return ["task_id", "seed"] if "seed" in frame else ["task_id"]


def compare_nights(before: pd.DataFrame, after: pd.DataFrame, *, alpha: float = DEFAULT_ALPHA,
                   by: Sequence[str] = GROUP) -> NightComparison:
    keys = _pair_keys(before) if set(_pair_keys(before)) <= set(after.columns) else ["task_id"]
    cols = list(dict.fromkeys([*by, *keys, "task_id", "passed"]))
    paired = before[cols].merge(after[cols], on=list(dict.fromkeys([*by, *keys])), suffixes=("_before", "_after"))
    paired = paired[paired["passed_before"].notna() & paired["passed_after"].notna()]
    was, now = paired["passed_before"].astype(bool), paired["passed_after"].astype(bool)
    paired = paired.assign(drop=was & ~now, gain=~was & now)
    configs = []
    for key, group in paired.groupby(list(by), observed=True):
        key = key if isinstance(key, tuple) else (key,)
        drops, gains = int(group["drop"].sum()), int(group["gain"].sum())
        p_value = drop_p_value(drops, gains)
        configs.append({**dict(zip(by, key)), "shared": len(group), "pass_before": group["passed_before"].astype(float).mean(),
                        "pass_after": group["passed_after"].astype(float).mean(), "drops": drops, "gains": gains,
                        "p_value": p_value, "regression": bool(drops > gains and p_value < alpha),
                        "errors_before": _errors(before, by, key), "errors_after": _errors(after, by, key)})
    changed = paired[paired["drop"] | paired["gain"]]
    task_col = "task_id" if "task_id" in changed else "task_id_before"
    changed = changed.assign(change=changed["drop"].map({True: "pass → fail", False: "fail → pass"}))
    return NightComparison(pd.DataFrame(configs), changed[[*by, task_col, "change"]].rename(columns={task_col: "task_id"}))


def _errors(frame: pd.DataFrame, by: Sequence[str], key: tuple) -> int:
    mask = pd.Series(True, index=frame.index)
    for col, value in zip(by, key):
        mask &= frame[col] == value
    return int(frame.loc[mask, "passed"].isna().sum())


def regressions(before: pd.DataFrame, after: pd.DataFrame, *, alpha: float = DEFAULT_ALPHA,
                by: Sequence[str] = GROUP) -> list[str]:
    """One line per configuration that regressed significantly or has more errors than before."""
    if before.empty or after.empty:
        return []
    lines = []
    for row in compare_nights(before, after, alpha=alpha, by=by).configs.itertuples(index=False):
        name = " × ".join(str(getattr(row, col)) for col in by)
        if row.regression:
            lines.append(f"{name}: pass@1 {row.pass_before:.2f} → {row.pass_after:.2f} on {row.shared} shared cells "
                         f"({row.drops} drops, {row.gains} gains, p = {row.p_value:.3g}, {TEST_NAME})")
        if row.errors_after > row.errors_before:
            lines.append(f"{name}: errors {row.errors_before} → {row.errors_after}")
    return lines


def evidence_markdown(comparison: NightComparison, baseline: str, tonight: str) -> str:
    """The markdown a nightly run attaches: per-configuration test results and the changed cells."""
    head = [f"# Nightly {tonight} vs {baseline}", "", f"Test: {TEST_NAME}.", ""]
    if comparison.configs.empty:
        return "\n".join([*head, "No configuration ran both nights."])
    table = comparison.configs.assign(pass_before=comparison.configs["pass_before"].round(3),
                                      pass_after=comparison.configs["pass_after"].round(3),
                                      p_value=comparison.configs["p_value"].map(lambda p: f"{p:.3g}"))
    parts = [*head, markdown_table(table), "", "## Cells that changed", ""]
    parts.append(markdown_table(comparison.changed) if len(comparison.changed) else "none")
    return "\n".join(parts)


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-style markdown table (Prefect renders these in artifacts)."""
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])
