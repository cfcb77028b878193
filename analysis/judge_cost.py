"""What the judge costs beside the executor: per attempt and per claw × model × track.

The closed loop's judge is its supervisor and user simulator (`JUDGE_ROLES`): their USD, tokens
and the wall time of the supervise and follow-up stages (`wall_judge_s`). Unknown stays unknown:
an attempt with an unpriced judge call has a NaN judge cost, never 0, and so has an imported row
(a published table gives no judge figure). A patch-track row has no judge at all: its judge
figures are NaN with `judged` False, shown as not applicable, never as a free judge.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.metrics import GROUP
from analysis.usage import known_mean_total
from clawmark.results.usage import JUDGE_ROLES

NOT_APPLICABLE = "n/a: the patch track has no judge"
NOT_PUBLISHED = "not published (imported rows)"
JUDGED = "supervisor + user simulator"


def judge_usage(frame: pd.DataFrame) -> pd.DataFrame:
    """One line per row of `frame` (same index): `judged` (the row's track has a judge),
    `judge_cost_usd`, `judge_tokens` (input + output of the judge roles; NaN when not collected),
    `judge_wall_s`, and the executor's `executor_cost_usd` and `executor_wall_s` beside them."""
    judged = frame["track"].eq("closed_loop").fillna(False).astype(bool)
    known = judged & frame["imported_from"].isna()
    costs = frame[[f"{role}_cost_usd" for role in JUDGE_ROLES]].astype(float)
    tokens = frame[[f"{role}_{kind}_tokens" for role in JUDGE_ROLES for kind in ("input", "output")]]
    return pd.DataFrame({
        "judged": judged,
        "judge_cost_usd": costs.sum(axis=1, skipna=False).where(known),  # one unpriced role: unknown
        "judge_tokens": tokens.astype("Float64").astype(float).sum(axis=1, min_count=1).where(known),
        "judge_wall_s": frame["wall_judge_s"].astype(float).where(known),
        "executor_cost_usd": frame["executor_cost_usd"].astype(float),
        "executor_wall_s": frame["wall_executor_s"].astype(float),
    }, index=frame.index)


def judge_cost_table(frame: pd.DataFrame, by: Sequence[str] = GROUP) -> pd.DataFrame:
    """Per group × track: attempts; executor and judge cost (mean over priced attempts, total,
    unpriced attempts); the judge's share of their summed cost; mean judge tokens; mean executor
    and judge wall seconds (mean and total). `judge` says what the judge figures are."""
    keys = [*by, "track"]
    if frame.empty:
        return pd.DataFrame(columns=[*keys, "judge", "attempts"])
    per_row = judge_usage(frame)
    group = frame[keys]
    executor = known_mean_total(group, per_row["executor_cost_usd"])
    judge = known_mean_total(group, per_row["judge_cost_usd"])
    times = group.assign(**per_row[["judged", "judge_tokens", "executor_wall_s", "judge_wall_s"]]).groupby(
        keys, observed=True, sort=True)
    table = pd.DataFrame({
        "attempts": times.size(),
        "executor_cost_mean": executor["mean"], "executor_cost_total": executor["total"],
        "executor_unpriced": executor["unknown"],
        "judge_cost_mean": judge["mean"], "judge_cost_total": judge["total"],
        "judge_unpriced": judge["unknown"].astype("Int64"),
        "judge_tokens_mean": times["judge_tokens"].mean(),
        "executor_wall_s_mean": times["executor_wall_s"].mean(),
        "judge_wall_s_mean": times["judge_wall_s"].mean(),
        "judge_wall_s_total": times["judge_wall_s"].sum(min_count=1),
    })
    with np.errstate(invalid="ignore", divide="ignore"):
        summed = table["executor_cost_total"] + table["judge_cost_total"]
        table.insert(table.columns.get_loc("judge_unpriced") + 1, "judge_share",
                     table["judge_cost_total"] / summed.where(summed > 0))
    imported = frame["imported_from"].notna().groupby([frame[k] for k in keys], observed=True, sort=True).all()
    judged = times["judged"].all()
    table.loc[~judged, "judge_unpriced"] = pd.NA  # nothing to price: not applicable, not "0 unpriced"
    table.insert(0, "judge", np.where(~judged, NOT_APPLICABLE, np.where(imported, NOT_PUBLISHED, JUDGED)))
    return table.reset_index()[[*keys, *table.columns]]


def judge_cost_view(table: pd.DataFrame) -> pd.DataFrame:
    """The report page's table: readable titles, and `n/a` (not a blank, not 0) in the judge
    columns of a configuration without a judge."""
    if table.empty:
        return table
    titles = {"executor_cost_mean": "executor $ / attempt", "judge_cost_mean": "judge $ / attempt",
              "executor_cost_total": "executor $ total", "judge_cost_total": "judge $ total",
              "judge_share": "judge share of cost", "judge_tokens_mean": "judge tokens / attempt",
              "executor_wall_s_mean": "executor s / attempt", "judge_wall_s_mean": "judge s / attempt",
              "judge_unpriced": "judge unpriced"}
    view = table[["claw", "model", "track", "attempts", *titles]].rename(columns=titles)
    view = view.apply(lambda col: col.round(4) if col.dtype.kind == "f" else col)
    absent = table["judge"].eq(NOT_APPLICABLE).to_numpy()
    for column in [titles[name] for name in titles if name.startswith("judge")]:
        view[column] = view[column].astype(object).where(~absent, "n/a")
    return view
