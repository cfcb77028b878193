"""The published Claw-SWE-Bench leaderboard JSON as cost-accuracy points.

Two shapes of section: `rows` (a fixed claw, models vary) and `groups` (a fixed model, claws
vary). Each point keeps its section, the fixed part and the varying part, so a front is computed
within one comparison, never across incomparable ones. Pass@1 is a fraction (0..1) as in our rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from clawmark.catalog.errors import CatalogError


def load_leaderboard(path: str | Path) -> pd.DataFrame:
    """Columns: section, comparison, claw, model, pass_at_1, total_cost, resolved, instances."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        sections = data["sections"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CatalogError(path, "sections", f"a Claw-SWE-Bench leaderboard JSON ({type(exc).__name__}: {exc})") from exc
    points = []
    for name, section in sections.items():
        if "rows" in section:
            fixed = section.get("fixed", "")
            claw = fixed.removesuffix(" harness")
            points += [_point(name, fixed, claw, row["system"], row) for row in section["rows"]]
        for group in section.get("groups", []):
            points += [_point(name, group["model"], row["system"], group["model"], row) for row in group["rows"]]
    return pd.DataFrame(points)


def _point(section: str, comparison: str, claw: str, model: str, row: dict) -> dict:
    return {"section": section, "comparison": comparison, "claw": claw, "model": model,
            "pass_at_1": row["total_pass1"] / 100, "total_cost": row.get("cost_usd"),
            "resolved": row.get("resolved"), "instances": row.get("instances")}
