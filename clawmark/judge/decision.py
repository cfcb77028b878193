"""The supervisor's decision for one executor turn (closed-loop.md "Supervisor decision").

`parse_decision` turns a model's text into a validated `Decision` (or `DecisionInvalid` with
the reason, which becomes the repair request); `normalise` applies the protocol's rules:

- pass ⇒ attempt_state complete_and_passed, recoverable false;
- fail with follow-ups left and a recoverable signal (recoverable true, or attempt_state
  in_progress / incomplete) ⇒ continue;
- continue ⇒ recoverable = follow-ups remain; a continue never claims complete_and_passed
  (it becomes incomplete).
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

Verdict = Literal["pass", "continue", "fail"]
AttemptState = Literal["in_progress", "incomplete", "complete_but_failed", "complete_and_passed", "terminal_failure"]
Confidence = Literal["low", "medium", "high"]
GuidanceTag = Literal[
    "missing_output", "wrong_location", "wrong_format", "incomplete_content", "wrong_values",
    "wrong_source", "unverified_claims", "ignored_constraint", "tool_misuse", "environment_issue",
    "needs_more_exploration", "language_mismatch", "partial_progress", "off_task", "unsafe_action",
]
GUIDANCE_TAGS: tuple[str, ...] = GuidanceTag.__args__  # type: ignore[attr-defined]
MissingArtifact = Annotated[str, StringConstraints(max_length=200)]
_RECOVERABLE_STATES = {"in_progress", "incomplete"}


class DecisionInvalid(ValueError):
    """A model reply that is not a valid decision; the message says what was wrong."""


class Decision(BaseModel):
    """The eight fields; unknown keys a model adds are ignored, wrong or missing ones refused."""

    model_config = ConfigDict(extra="ignore")

    verdict: Verdict
    attempt_state: AttemptState
    recoverable: bool
    score: float = Field(ge=0.0, le=1.0)
    confidence: Confidence
    rationale: str = Field(max_length=2000)
    missing_artifacts: list[MissingArtifact] = Field(default_factory=list, max_length=10)
    guidance_tags: list[GuidanceTag] = Field(default_factory=list, max_length=10)


def normalise(decision: Decision, followups_left: int) -> Decision:
    """The decision as the protocol reads it (see the module docstring)."""
    if decision.verdict == "pass":
        return decision.model_copy(update={"attempt_state": "complete_and_passed", "recoverable": False})
    signal = decision.recoverable or decision.attempt_state in _RECOVERABLE_STATES
    if decision.verdict == "fail" and followups_left > 0 and signal:
        decision = decision.model_copy(update={"verdict": "continue"})
    if decision.verdict == "continue":
        state = "incomplete" if decision.attempt_state == "complete_and_passed" else decision.attempt_state
        return decision.model_copy(update={"recoverable": followups_left > 0, "attempt_state": state})
    return decision


def extract_json_object(text: str) -> dict:
    """The JSON object in a reply: the whole text, a fenced block, or the outermost {...}."""
    candidates = [text.strip()]
    candidates += re.findall(r"```(?:json)?\s*(.*?)```", text, flags=re.DOTALL)
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{"): text.rindex("}") + 1])
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    raise DecisionInvalid("the reply holds no JSON object")


def parse_decision(text: str) -> Decision:
    """A validated Decision from a model reply, or DecisionInvalid naming the bad fields."""
    try:
        return Decision.model_validate(extract_json_object(text))
    except ValidationError as exc:
        raise DecisionInvalid(validation_summary(exc)) from None


def validation_summary(exc: ValidationError) -> str:
    """One line per error: `field: message` (what a repair request quotes back)."""
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}" for e in exc.errors()[:10])
