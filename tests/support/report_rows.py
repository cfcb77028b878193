"""A small mixed results table (both tracks, every outcome kind) shared by the report tests."""

from __future__ import annotations

import json
import math

import pandas as pd

from clawmark.results import to_frame, to_table
from clawmark.results.synthetic import example_row
from clawmark.results.usage import RoleUsage

SWEEP = "report-demo"


def _usage(cost: float) -> dict[str, RoleUsage]:
    return {"executor": RoleUsage(input_tokens=2000, cached_tokens=500, output_tokens=200, calls=3, cost_usd=cost),
            "supervisor": RoleUsage(input_tokens=800, cached_tokens=0, output_tokens=60, calls=1, cost_usd=cost / 4),
            "user_simulator": RoleUsage(input_tokens=300, cached_tokens=0, output_tokens=40, calls=1, cost_usd=cost / 8)}


def mixed_rows() -> pd.DataFrame:
    """claw r × models cheap/dear on four closed-loop tasks, plus two patch rows of claw p.
    pass@1 by hand: r × dear = 3/3 measured (one error), r × cheap = 1/4, p × dear = 1/2."""
    rows = []
    for model, cost, outcomes in (("dear", 0.08, ["pass", "pass", "pass", "infra_error"]),
                                  ("cheap", 0.01, ["pass", "fail", "fail", "fail"])):
        for i, (status, capability) in enumerate(zip(outcomes, ["skill_usage", "exploration", "multimodal", "exploration"])):
            score = {"pass": 0.95, "fail": 0.4, "infra_error": math.nan}[status]
            scores = [0.5, score] if (model == "dear" and i == 1) else [score]
            rows.append(example_row(
                sweep_id=SWEEP, task_id=f"cl-{i}", claw="r", model=model, status=status, score=score,
                capability=capability, language="zh" if i % 2 else "en", turns=len(scores),
                turn_scores=json.dumps(scores) if status != "infra_error" else None,
                best_turn=len(scores) - 1 if status != "infra_error" else None, usage=_usage(cost),
                leak_flags=json.dumps(["ngram: 'weights sum to one'"]) if (model == "cheap" and i == 2) else None))
    for i, status in enumerate(["resolved", "unresolved"]):
        rows.append(example_row(
            sweep_id=SWEEP, track="patch", task_id=f"swe-{i}", claw="p", model="dear", status=status,
            category="org/repo", capability=None, language="python", score=math.nan, threshold=math.nan,
            usage={"executor": _usage(0.05)["executor"]},
            failure_reason="tests_timeout" if status == "unresolved" else None))
    return to_frame(to_table(rows))
