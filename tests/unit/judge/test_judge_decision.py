"""The supervisor decision: validation of model replies, the protocol's normalisation, the firewall."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from clawmark.judge.decision import Decision, DecisionInvalid, normalise, parse_decision
from clawmark.judge.info_firewall import CROSSING_FIELDS, FirewallView, firewall

GOOD = {"verdict": "continue", "attempt_state": "incomplete", "recoverable": True, "score": 0.4,
        "confidence": "medium", "rationale": "C2 total is wrong", "missing_artifacts": ["notes.md"],
        "guidance_tags": ["wrong_values"]}


def decision(**overrides) -> Decision:
    return Decision.model_validate(GOOD | overrides)


def test_reply_in_a_fence_with_extra_keys_parses():
    reply = "Here is my decision:\n```json\n" + json.dumps(GOOD | {"checkpoint_scores": {"C1": 1}}) + "\n```"
    parsed = parse_decision(reply)
    assert (parsed.verdict, parsed.score, parsed.missing_artifacts) == ("continue", 0.4, ["notes.md"])


@pytest.mark.parametrize("bad, field", [
    ({"score": 1.5}, "score"), ({"verdict": "maybe"}, "verdict"), ({"guidance_tags": ["be_nicer"]}, "guidance_tags.0"),
    ({"rationale": "x" * 2001}, "rationale"), ({"missing_artifacts": ["a"] * 11}, "missing_artifacts"),
    ({"missing_artifacts": ["a" * 201]}, "missing_artifacts.0"),
])
def test_out_of_bounds_fields_are_named(bad, field):
    with pytest.raises(DecisionInvalid, match=rf"^{field}: "):
        parse_decision(json.dumps(GOOD | bad))


def test_missing_field_and_prose_are_invalid():
    with pytest.raises(DecisionInvalid, match="confidence: Field required"):
        parse_decision(json.dumps({k: v for k, v in GOOD.items() if k != "confidence"}))
    with pytest.raises(DecisionInvalid, match="no JSON object"):
        parse_decision("I think the executor did fine.")


def test_pass_is_complete_and_not_recoverable():
    normal = normalise(decision(verdict="pass", attempt_state="in_progress", recoverable=True), followups_left=2)
    assert (normal.verdict, normal.attempt_state, normal.recoverable) == ("pass", "complete_and_passed", False)


def test_recoverable_fail_with_followups_left_continues():
    assert normalise(decision(verdict="fail", recoverable=True), 1).verdict == "continue"
    assert normalise(decision(verdict="fail", recoverable=False, attempt_state="incomplete"), 1).verdict == "continue"
    assert normalise(decision(verdict="fail", recoverable=True), 0).verdict == "fail"
    hopeless = decision(verdict="fail", recoverable=False, attempt_state="terminal_failure")
    assert normalise(hopeless, 2).verdict == "fail"


def test_continue_is_recoverable_exactly_when_followups_remain():
    assert normalise(decision(recoverable=False), 1).recoverable is True
    assert normalise(decision(recoverable=True), 0).recoverable is False
    assert normalise(decision(attempt_state="complete_and_passed"), 1).attempt_state == "incomplete"


def test_firewall_lets_four_fields_cross_and_nothing_else():
    view = firewall(decision())
    assert view.model_dump() == {"verdict": "continue", "attempt_state": "incomplete", "recoverable": True, "score": 0.4}
    assert set(FirewallView.model_fields) == set(CROSSING_FIELDS)
    with pytest.raises(ValidationError):
        FirewallView(**view.model_dump(), rationale="C2 total is wrong")
    with pytest.raises(ValidationError):
        view.score = 0.9  # frozen
