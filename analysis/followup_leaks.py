"""Follow-ups the leak audit stopped, per claw × model: how often the user simulator's message
carried hidden material and what the executor got instead (the redacted retry, or the neutral
continue message). Rows written before the `followup_leak_blocked` column count as unchecked."""

from __future__ import annotations

import json

import pandas as pd

from analysis.metrics import GROUP

COLUMNS = [*GROUP, "rows", "rows_checked", "followups_sent", "drafts_blocked", "retry_sent", "neutral_sent",
           "rows_blocked"]


def followup_leak_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One line per claw × model of closed-loop rows (empty table when there are none)."""
    rows = frame[frame["track"] == "closed_loop"] if len(frame) else frame
    if rows.empty or "followup_leak_blocked" not in rows.columns:
        return pd.DataFrame(columns=COLUMNS)
    outcomes = rows["leak_flags"].map(_sent_instead)
    counts = rows.assign(
        checked=rows["followup_leak_blocked"].notna(),
        blocked=rows["followup_leak_blocked"].astype("Float64").fillna(0),
        followups=rows["followups_used"].astype("Float64").fillna(0),
        retry=outcomes.map(lambda o: o.count("retry")), neutral=outcomes.map(lambda o: o.count("neutral")))
    table = counts.groupby(list(GROUP), observed=True).agg(
        rows=("task_id", "size"), rows_checked=("checked", "sum"), followups_sent=("followups", "sum"),
        drafts_blocked=("blocked", "sum"), retry_sent=("retry", "sum"), neutral_sent=("neutral", "sum"),
        rows_blocked=("blocked", lambda b: int((b > 0).sum()))).reset_index()
    whole = ["rows_checked", "followups_sent", "drafts_blocked", "retry_sent", "neutral_sent", "rows_blocked"]
    return table.astype({c: "int64" for c in whole})[COLUMNS]


def _sent_instead(value: object) -> list[str]:
    """Per stopped follow-up of a row, what was sent: 'retry' or 'neutral' (from its leak flags)."""
    try:
        flags = json.loads(value) if isinstance(value, str) and value else []
    except ValueError:
        return []
    found = [f for f in flags if isinstance(f, str) and f.startswith("followup_blocked:")]
    return ["neutral" if "neutral" in f else "retry" for f in found]
