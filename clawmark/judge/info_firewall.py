"""The information firewall: what of a decision may reach the user simulator.

Only verdict, attempt_state, recoverable and score cross (ARCHITECTURE.md invariant 2). The
view is frozen and refuses extra fields, so nothing else can be attached on the way.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from clawmark.judge.decision import AttemptState, Decision, Verdict

CROSSING_FIELDS = ("verdict", "attempt_state", "recoverable", "score")


class FirewallView(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: Verdict
    attempt_state: AttemptState
    recoverable: bool
    score: float = Field(ge=0.0, le=1.0)


def firewall(decision: Decision) -> FirewallView:
    """The four crossing fields of a (normalised) decision; rationale, tags and gaps stay behind."""
    return FirewallView(**{name: getattr(decision, name) for name in CROSSING_FIELDS})
