"""The report's summary tables, computed once from the rows; plots and HTML only read these."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pandas as pd

from analysis.breakdown import breakdown
from analysis.closed_loop import followup_effect, followup_gain, pass_by_followups, score_summary
from analysis.compare import all_pairs
from analysis.decompose import harness_model_effects
from analysis.coverage import status_counts, with_missing
from analysis.followup_leaks import followup_leak_table
from analysis.judge_cost import judge_cost_table
from analysis.metrics import GROUP, mean_score
from analysis.pareto import cost_accuracy, front_share, on_front
from analysis.ranking import rank_stability
from analysis.usage import cost_summary, tokens_per_role
from clawmark.results.usage import ROLES

BASELINE_CLAWS = ("oracle", "nop")
CAPABILITY_LANGUAGE = "capability_language"


@dataclass
class ReportTables:
    leaderboard: pd.DataFrame
    front: pd.DataFrame
    breakdowns: dict[str, pd.DataFrame]
    followup: pd.DataFrame
    scores: pd.DataFrame
    roles: pd.DataFrame
    statuses: pd.DataFrame
    failures: pd.DataFrame
    comparisons: pd.DataFrame
    leaks: pd.DataFrame
    extra: dict[str, pd.DataFrame] = field(default_factory=dict)

    def named(self) -> dict[str, pd.DataFrame]:
        tables = {"leaderboard": self.leaderboard, "pareto_front": self.front, "followup_gain": self.followup,
                  "closed_loop_scores": self.scores, "cost_per_role": self.roles, "statuses": self.statuses,
                  "failure_reasons": self.failures, "comparisons": self.comparisons, "leak_flags": self.leaks}
        return tables | {f"by_{name}": table for name, table in self.breakdowns.items()} | self.extra


def summarise(frame: pd.DataFrame, expected: pd.DataFrame | None = None, *, n_boot: int = 1000,
              seed: int = 0) -> ReportTables:
    """Every table of the report. `expected` (sweep_id, cell_key, claw, model, task_id) adds the
    cells that have no row as `missing` to the status counts; they never enter a rate."""
    counted = with_missing(frame, expected) if expected is not None else frame
    every_row = frame  # failures and leaks are shown for every claw, baselines included
    frame, baselines = split_baselines(frame)
    points = _leaderboard(frame, n_boot=n_boot, seed=seed)
    front = points[points["on_front"]].sort_values("mean_cost") if len(points) else points
    effects, cells = harness_model_effects(frame, n_boot=n_boot, seed=seed)
    extra = {"baselines": cost_accuracy(baselines, n_boot=n_boot, seed=seed) if len(baselines) else pd.DataFrame(),
             "followup_effect": followup_effect(frame), "pass_by_followups": pass_by_followups(frame),
             "harness_model_effects": effects, "harness_model_cells": cells,
             "followup_leaks": followup_leak_table(every_row), "judge_cost": judge_cost_table(every_row)}
    return ReportTables(
        leaderboard=points, front=front,
        breakdowns={dim: breakdown(with_capability_language(frame), dim, n_boot=n_boot, seed=seed)
                    for dim in ("capability", "language", CAPABILITY_LANGUAGE, "category", "track")},
        followup=followup_gain(frame), scores=score_summary(frame), roles=tokens_per_role(frame),
        statuses=status_counts(counted) if len(counted) else pd.DataFrame(),
        failures=_failure_reasons(every_row), comparisons=all_pairs(frame, n_boot=n_boot, seed=seed),
        leaks=_leaks(every_row), extra=extra)


def with_capability_language(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with a `capability · language` column (null unless both are known)."""
    both = frame["capability"].astype("string") + " · " + frame["language"].astype("string")
    return frame.assign(**{CAPABILITY_LANGUAGE: both})


def split_baselines(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rows of real claws, rows of the sanity baselines). The baselines (oracle: the reference
    answer, nop: nothing) check the harness, not a claw: they stay out of the leaderboard, the
    front and the comparisons. A sweep of baselines only keeps them (there is nothing else)."""
    is_baseline = frame["claw"].isin(BASELINE_CLAWS) if len(frame) else pd.Series(dtype=bool)
    if not len(frame) or is_baseline.all():
        return frame, frame.iloc[0:0]
    return frame[~is_baseline], frame[is_baseline]


def _leaderboard(frame: pd.DataFrame, *, n_boot: int, seed: int) -> pd.DataFrame:
    if frame.empty:
        return pd.DataFrame(columns=[*GROUP, "pass_at_1", "on_front"])
    points = cost_accuracy(frame, n_boot=n_boot, seed=seed)
    ranks = rank_stability(frame, n_boot=n_boot, seed=seed)[[*GROUP, "rank", "rank_low", "rank_high", "p_first"]]
    shares = front_share(frame, n_boot=n_boot, seed=seed)[[*GROUP, "front_share"]]
    tokens = frame[[*GROUP]].assign(mean_tokens=_total_tokens(frame)).groupby(list(GROUP), observed=True).mean()
    points = (points.merge(ranks, on=list(GROUP)).merge(shares, on=list(GROUP))
              .merge(mean_score(frame), on=list(GROUP)).merge(cost_summary(frame), on=list(GROUP))
              .merge(tokens.reset_index(), on=list(GROUP)))
    points["on_front"] = on_front(points)
    return points.sort_values(["rank", *GROUP], na_position="last").reset_index(drop=True)


def _total_tokens(frame: pd.DataFrame) -> pd.Series:
    cols = [f"{role}_{kind}_tokens" for role in ROLES for kind in ("input", "output")]
    return frame[cols].astype("Float64").astype(float).sum(axis=1, min_count=1)


def _failure_reasons(frame: pd.DataFrame) -> pd.DataFrame:
    rows = frame[frame["failure_reason"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=[*GROUP, "status", "failure_reason", "rows"])
    return rows.groupby([*GROUP, "status", "failure_reason"], observed=True).size().rename("rows").reset_index()


def _leaks(frame: pd.DataFrame) -> pd.DataFrame:
    flagged = []
    for row in frame[frame["leak_flags"].notna()].itertuples(index=False):
        try:
            flags = json.loads(row.leak_flags)
        except ValueError:
            flags = [row.leak_flags]
        if flags:
            flagged.append({"claw": row.claw, "model": row.model, "task_id": row.task_id, "seed": row.seed,
                            "flags": "; ".join(map(str, flags)), "artifacts_dir": row.artifacts_dir})
    return pd.DataFrame(flagged, columns=["claw", "model", "task_id", "seed", "flags", "artifacts_dir"])


def round_floats(table: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    return table.apply(lambda col: col.round(digits) if col.dtype.kind == "f" else col) if len(table) else table

