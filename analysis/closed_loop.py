"""Closed-loop views: average score, the turn the best score came from, and what follow-ups buy.

Only measured rows count (`passed` not null); error rows are reported by coverage, never here.
A row passes "by turn t" when its first score at or above the threshold came within its first t
executor turns; the loop stops at a pass, so this is the pass rate a protocol with t − 1
follow-ups would have measured (UniClawBench reports turn 1 → 3 this way).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import pandas as pd

from analysis.metrics import GROUP


def turn_scores(value: object) -> list[float]:
    """The JSON list of per-turn scores of a row; [] when absent or unreadable."""
    if not isinstance(value, str) or not value:
        return []
    try:
        scores = json.loads(value)  # the writer keeps NaN for an unscored turn
    except ValueError:
        return []
    return [float("nan") if s is None else float(s) for s in scores] if isinstance(scores, list) else []


def first_pass_turn(row: pd.Series) -> float:
    """1-based turn of the first score ≥ threshold of a passed row; NaN for a row that did not pass."""
    if pd.isna(row["passed"]) or not bool(row["passed"]):
        return math.nan
    for turn, score in enumerate(turn_scores(row.get("turn_scores")), start=1):
        if score >= row["threshold"]:
            return float(turn)
    best = row.get("best_turn")
    return float(best) + 1 if best is not None and not pd.isna(best) else math.nan


def _measured_closed_loop(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[(frame["track"] == "closed_loop") & frame["passed"].notna()]


def followup_gain(frame: pd.DataFrame, by: Sequence[str] = GROUP, max_turns: int | None = None) -> pd.DataFrame:
    """Long table: per group and turn t = 1..T, the pass rate by turn t over measured rows."""
    rows = _measured_closed_loop(frame)
    if rows.empty:
        return pd.DataFrame(columns=[*by, "turn", "pass_rate", "rows"])
    first = rows.apply(first_pass_turn, axis=1)
    seen = [v for v in (rows["turns"].astype("Float64").max(skipna=True), first.max()) if not pd.isna(v)]
    limit = max_turns or int(max([1, *seen]))
    out = []
    for key, idx in rows.groupby(list(by), observed=True).groups.items():
        key = key if isinstance(key, tuple) else (key,)
        got = first.loc[idx]
        for turn in range(1, limit + 1):
            out.append({**dict(zip(by, key)), "turn": turn, "pass_rate": float((got <= turn).mean()),
                        "rows": len(idx)})
    return pd.DataFrame(out)


def score_summary(frame: pd.DataFrame, by: Sequence[str] = GROUP) -> pd.DataFrame:
    """Per group: mean best score of scored closed-loop rows and the best-turn distribution
    (`best_turn_1`, `best_turn_2`, … as shares of scored rows)."""
    rows = _measured_closed_loop(frame)
    rows = rows[rows["score"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=[*by, "mean_score", "scored"])
    best = rows["best_turn"].astype("Float64") + 1
    work = rows[list(by)].assign(score=rows["score"].astype(float), best=best)
    summary = work.groupby(list(by), observed=True).agg(mean_score=("score", "mean"), scored=("score", "size"))
    shares = pd.crosstab([work[c] for c in by], work["best"], normalize="index")
    shares.columns = [f"best_turn_{int(c)}" for c in shares.columns]
    return summary.join(shares).reset_index()


def followup_effect(frame: pd.DataFrame, by: Sequence[str] = GROUP) -> pd.DataFrame:
    """Per group, over measured closed-loop rows with a known turn count: how many passed on the
    first turn, how many got at least one follow-up (more than one judged turn) and how many of
    those ended passed — the share a follow-up turned a fail into a pass."""
    rows = _measured_closed_loop(frame)
    rows = rows[rows["turns"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=[*by, "rows", "passed_turn_1", "followed_up", "rescued", "rescue_rate"])
    turns, passed = rows["turns"].astype(int), rows["passed"].astype(bool)
    work = rows[list(by)].assign(rows=1, passed_turn_1=(passed & (turns <= 1)).astype(int),
                                 followed_up=(turns > 1).astype(int), rescued=(passed & (turns > 1)).astype(int))
    table = work.groupby(list(by), observed=True).sum().reset_index()
    table["rescue_rate"] = table["rescued"] / table["followed_up"].where(table["followed_up"] > 0)
    return table


def pass_by_followups(frame: pd.DataFrame, by: Sequence[str] = GROUP) -> pd.DataFrame:
    """Long table: per group and number of follow-ups used, the rows and their pass rate."""
    rows = _measured_closed_loop(frame)
    rows = rows[rows["followups_used"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=[*by, "followups_used", "rows", "pass_rate"])
    work = rows[list(by)].assign(followups_used=rows["followups_used"].astype(int), passed=rows["passed"].astype(float))
    return (work.groupby([*by, "followups_used"], observed=True)["passed"].agg(rows="size", pass_rate="mean")
            .reset_index())
