"""Headline numbers of a sweep per claw × model, and night-over-night regressions.

Errors (infra/harness) are counted apart and excluded from the pass-rate denominator: a missing
measurement is not a fail. The full statistics (CIs, Pareto fronts) live in `analysis/`.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

MEASURED_ERROR_KINDS = ("none", "model", "budget", "timeout")
REGRESSION_DROP = 0.10


def _success(frame: pd.DataFrame) -> pd.Series:
    """Resolved (patch) or passed (closed loop), False where the attempt ran to a verdict."""
    return frame["resolved"].fillna(frame["passed"]).fillna(False).astype(bool)


def summarize(frame: pd.DataFrame) -> list[dict[str, Any]]:
    if frame.empty:
        return []
    measured = frame["error_kind"].isin(MEASURED_ERROR_KINDS)
    work = frame.assign(measured=measured, success=_success(frame) & measured)
    out = []
    for (claw, model), group in work.groupby(["claw", "model"], sort=True):
        n_measured = int(group["measured"].sum())
        out.append({
            "claw": claw, "model": model, "cells": len(group), "measured": n_measured,
            "errors": len(group) - n_measured, "successes": int(group["success"].sum()),
            "rate": group["success"].sum() / n_measured if n_measured else math.nan,
            "cost_usd": float(group["cost_usd"].sum(min_count=1)),
        })
    return out


def compare_summaries(before: pd.DataFrame, after: pd.DataFrame) -> list[str]:
    """Lines naming each claw × model whose success rate fell by more than REGRESSION_DROP."""
    old = {(s["claw"], s["model"]): s for s in summarize(before)}
    lines = []
    for now in summarize(after):
        prev = old.get((now["claw"], now["model"]))
        if prev and prev["rate"] - now["rate"] > REGRESSION_DROP:
            lines.append(f"{now['claw']} × {now['model']}: {prev['rate']:.2f} → {now['rate']:.2f}")
        if prev and now["errors"] > prev["errors"]:
            lines.append(f"{now['claw']} × {now['model']}: errors {prev['errors']} → {now['errors']}")
    return lines
