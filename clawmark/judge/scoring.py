"""The final score of one turn: code decides what checks cover, the supervisor the rest.

Combination rule (let W be the rubric's total checkpoint weight, normally 1.0):

1. A checkpoint is *covered* when checks.yaml names it in at least one check and does not list
   it as `advisory` (ChecksFile.covered). Its weight w counts in code: w if every one of its
   checks passed, else 0 (a check without a result counts as failed). code = Σ those, over W.
2. The supervisor's score s (0..1) rates the checkpoints the checks do not cover, as a fraction
   of their weight (its prompt says so), and is rescaled onto that weight:
   supervisor_part = s × (W − covered weight) / W. Without covered checkpoints s is the
   whole-task score.
3. raw = code + supervisor_part; then every cap whose check failed lowers it:
   final = min(raw, min(max_score of the failed checks' caps)).

Without a checks file, or with checks but no covered checkpoint and no failed capped check,
final = s exactly: rubrics without checks score as upstream. The supervisor cannot move the
code part or lift a cap: it only supplies s.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from clawmark.catalog.check_specs import ChecksFile
from clawmark.catalog.eval_rule import Rubric
from clawmark.judge.checks import CheckResult


class ScoreBreakdown(BaseModel):
    supervisor_score: float = Field(description="s, as the supervisor gave it.")
    code_part: float = Field(0.0, description="Covered checkpoints' weight earned, over W.")
    covered_share: float = Field(0.0, description="Covered weight over W (0 without checks).")
    covered_passed: dict[str, bool] = Field(default_factory=dict, description="Covered checkpoint -> all passed.")
    caps_applied: list[str] = Field(default_factory=list, description="Checks whose failure capped the score.")
    cap: float | None = None
    final: float


def final_score(rubric: Rubric, checks: ChecksFile | None, results: list[CheckResult],
                supervisor_score: float) -> ScoreBreakdown:
    if checks is None:
        return ScoreBreakdown(supervisor_score=supervisor_score, final=supervisor_score)
    passed = {r.id: r.passed for r in results}
    total = rubric.total_weight or 1.0
    covered = {c.id: (c.weight, all(passed.get(i, False) for i in c.checks)) for c in checks.covered(rubric)}
    share = sum(w for w, _ in covered.values()) / total
    code = sum(w for w, ok in covered.values() if ok) / total
    raw = code + supervisor_score * max(0.0, 1.0 - share)
    failed_caps = [c for c in checks.caps if not passed.get(c.check, False)]
    cap = min((c.max_score for c in failed_caps), default=None)
    final = min(raw, cap) if cap is not None else raw
    return ScoreBreakdown(supervisor_score=supervisor_score, code_part=round(code, 6), covered_share=round(share, 6),
                          covered_passed={k: ok for k, (_, ok) in covered.items()},
                          caps_applied=[c.check for c in failed_caps], cap=cap, final=round(min(1.0, final), 6))
