"""How two judges agree on the same closed-loop attempts: pass/fail agreement, Cohen's κ, score
correlation, and the tasks they disagree on.

A judge is a sweep (its rows name their `supervisor_model`; with scripted per-task judges that
model differs per task, so the sweep is what identifies the judge). Rows judge the same attempt
when one re-judges the other (`rejudge_of` = the other's `attempt_id`) or both re-judge the same
attempt. Error rows (passed null) stay out of the pass/fail figures and are counted apart:
an unjudged attempt is not a disagreement. κ is NaN when it is undefined (both judges gave one
and the same label to every attempt), never 1 or 0 by default; so is r with fewer than two scored
pairs or a constant side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import pandas as pd

PAIR_COLUMNS = ["judge_a", "judge_b", "task_id", "claw", "model", "seed", "passed_a", "passed_b", "score_a",
                "score_b", "agree"]
SUMMARY_COLUMNS = ["judge_a", "judge_b", "supervisor_a", "supervisor_b", "pairs", "unjudged", "agreement", "kappa",
                   "score_r", "mean_abs_score_diff", "both_pass", "a_only", "b_only", "both_fail", "disagreements",
                   "disagree_on"]


@dataclass
class JudgeAgreement:
    summary: pd.DataFrame  # one row per pair of judges
    pairs: pd.DataFrame  # one row per attempt both judged

    @property
    def disagreements(self) -> pd.DataFrame:
        return self.pairs[self.pairs["agree"].eq(False)] if len(self.pairs) else self.pairs


def judge_agreement(frame: pd.DataFrame) -> JudgeAgreement:
    """Agreement of every pair of judges (sweeps) in `frame` over the attempts both judged."""
    rows = frame[frame["track"].eq("closed_loop")] if "track" in frame else frame
    if rows.empty:
        return JudgeAgreement(pd.DataFrame(columns=SUMMARY_COLUMNS), pd.DataFrame(columns=PAIR_COLUMNS))
    rows = rows.assign(judged=_judged_attempt(rows))
    summaries, pairs = [], []
    for judge_a, judge_b in combinations(sorted(rows["sweep_id"].unique()), 2):
        paired = _pair(rows, judge_a, judge_b)
        if paired.empty:
            continue
        pairs.append(paired)
        summaries.append(_summary(paired, rows, judge_a, judge_b))
    return JudgeAgreement(pd.DataFrame(summaries, columns=SUMMARY_COLUMNS),
                          pd.concat(pairs, ignore_index=True) if pairs else pd.DataFrame(columns=PAIR_COLUMNS))


def cohen_kappa(a: pd.Series, b: pd.Series) -> float:
    """κ of two boolean label series of one length (NaN when chance agreement is already 1)."""
    if len(a) == 0:
        return math.nan
    a, b = a.astype(bool).to_numpy(), b.astype(bool).to_numpy()
    observed = float((a == b).mean())
    chance = float(a.mean() * b.mean() + (1 - a.mean()) * (1 - b.mean()))
    return math.nan if chance >= 1.0 else (observed - chance) / (1.0 - chance)


def _judged_attempt(rows: pd.DataFrame) -> pd.Series:
    """The attempt a row judged: the one it re-judges, else its own."""
    if "rejudge_of" not in rows:
        return rows["attempt_id"]
    return rows["rejudge_of"].astype("object").where(rows["rejudge_of"].notna(), rows["attempt_id"])


def _pair(rows: pd.DataFrame, judge_a: str, judge_b: str) -> pd.DataFrame:
    keep = ["judged", "task_id", "claw", "model", "seed", "passed", "score"]
    a = rows.loc[rows["sweep_id"].eq(judge_a), keep]
    b = rows.loc[rows["sweep_id"].eq(judge_b), ["judged", "passed", "score"]]
    paired = a.merge(b, on="judged", suffixes=("_a", "_b"))
    if paired.empty:
        return pd.DataFrame(columns=PAIR_COLUMNS)
    passed_a, passed_b = paired["passed_a"].astype("boolean"), paired["passed_b"].astype("boolean")
    agree = (passed_a == passed_b).astype("boolean")
    paired = paired.assign(judge_a=judge_a, judge_b=judge_b, passed_a=passed_a, passed_b=passed_b, agree=agree)
    return paired[PAIR_COLUMNS].sort_values(["task_id", "claw", "model", "seed"]).reset_index(drop=True)


def _summary(paired: pd.DataFrame, rows: pd.DataFrame, judge_a: str, judge_b: str) -> dict:
    judged = paired[paired["passed_a"].notna() & paired["passed_b"].notna()]
    a, b = judged["passed_a"].astype(bool), judged["passed_b"].astype(bool)
    scores = paired[["score_a", "score_b"]].astype(float).dropna()
    differ = judged[a != b]
    return {
        "judge_a": judge_a, "judge_b": judge_b,
        "supervisor_a": _models(rows, judge_a), "supervisor_b": _models(rows, judge_b),
        "pairs": len(paired), "unjudged": len(paired) - len(judged),
        "agreement": float((a == b).mean()) if len(judged) else math.nan,
        "kappa": cohen_kappa(a, b), "score_r": _correlation(scores),
        "mean_abs_score_diff": float((scores["score_a"] - scores["score_b"]).abs().mean()) if len(scores) else math.nan,
        "both_pass": int((a & b).sum()), "a_only": int((a & ~b).sum()), "b_only": int((~a & b).sum()),
        "both_fail": int((~a & ~b).sum()), "disagreements": len(differ),
        "disagree_on": "; ".join(_attempt_name(r, paired) for r in differ.itertuples(index=False)),
    }


def _correlation(scores: pd.DataFrame) -> float:
    if len(scores) < 2 or scores["score_a"].nunique() < 2 or scores["score_b"].nunique() < 2:
        return math.nan
    return float(scores["score_a"].corr(scores["score_b"]))


def _models(rows: pd.DataFrame, judge: str, shown: int = 3) -> str:
    if "supervisor_model" not in rows:
        return ""
    models = sorted(rows.loc[rows["sweep_id"].eq(judge), "supervisor_model"].dropna().astype(str).unique())
    return ", ".join(models[:shown]) + (f" (+{len(models) - shown} more)" if len(models) > shown else "")


def _attempt_name(row, paired: pd.DataFrame) -> str:
    """The task id, with claw/model/seed when the task has more than one attempt in the pairs."""
    if (paired["task_id"] == row.task_id).sum() <= 1:
        return str(row.task_id)
    return f"{row.task_id} ({row.claw}/{row.model}/seed {row.seed})"


def agreement_section(frame: pd.DataFrame, judges: pd.DataFrame, tables: dict[str, pd.DataFrame]) -> dict | None:
    """The report's judge-agreement section (None when no attempt was judged by both); adds the
    `judge_agreement` and `judge_pairs` tables to `tables`."""
    from analysis.report.html import table_html  # the report imports this module
    from analysis.report.tables import round_floats

    found = judge_agreement(pd.concat([frame, judges], ignore_index=True))
    if found.summary.empty:
        return None
    tables |= {"judge_agreement": found.summary, "judge_pairs": found.pairs}
    disagreements = found.disagreements[["judge_a", "judge_b", "task_id", "claw", "model", "seed", "passed_a",
                                         "passed_b", "score_a", "score_b"]]
    return {"id": "judge-agreement", "title": "Judge agreement", "figure": None,
            "table": table_html(round_floats(found.summary)) + "<h3>Disagreements</h3>"
            + table_html(round_floats(disagreements)),
            "note": "The same closed-loop attempts judged by two supervisors (a re-judge and its source): pass/fail "
                    "agreement, Cohen's κ (NaN when undefined), Pearson r of the scores, and the attempts they "
                    "disagree on. Error rows on either side are counted as unjudged, never as disagreements."}
