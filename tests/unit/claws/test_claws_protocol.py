"""The claw protocol's small promises: registry, the gold patch for the oracle only, the fixed
prompt (problem statement + base commit, never hints), typed outcomes of model failures, and
the host-side deadline of a turn."""

from __future__ import annotations

import threading

import pytest

from clawmark.attempts.outcome import model_error_status
from clawmark.attempts.session import run_with_deadline
from clawmark.claws import ClawAdapter, TurnResult, claw_names, get_claw
from clawmark.claws.base import UnknownClaw
from clawmark.results import Status
from tests.support.claws_host import INI, instance


def test_registry_knows_the_five_claws_and_names_them_on_a_typo():
    # Every claw module adds itself to the registry; the five of the protocol's first wave stay.
    assert {"bare", "mini-swe-agent", "nop", "oracle", "reference", "openclaw", "edict"} <= set(claw_names())
    for name in claw_names():
        claw = get_claw(name)
        assert isinstance(claw, ClawAdapter) and claw.name == name and claw.settings()["name"] == name
    with pytest.raises(UnknownClaw, match="expected one of: bare, .*mini-swe-agent"):
        get_claw("openclaw-typo")


def test_only_the_oracle_asks_for_the_gold_patch():
    assert [n for n in claw_names() if get_claw(n).needs_gold_patch] == ["oracle"]


def test_claw_settings_are_validated_and_change_its_identity():
    assert get_claw("reference", {"temperature": 0.7}).settings() != get_claw("reference").settings()
    with pytest.raises(ValueError):
        get_claw("reference", {"temperature": "hot"})


def test_prompt_carries_issue_and_base_commit_but_never_hints():
    row = instance(INI).model_copy(update={"hints_text": "SECRET HINT: look at _clean_value"})
    prompt = get_claw("reference").render_prompt(problem_statement=row.problem_statement,
                                                 base_commit=row.base_commit, workspace="/testbed")
    assert row.problem_statement in prompt and row.base_commit in prompt and "/testbed" in prompt
    assert "SECRET HINT" not in prompt
    assert all(get_claw(n).prompt_template == get_claw("reference").prompt_template for n in claw_names())


@pytest.mark.parametrize("kind, status", [("rate_limited", Status.RATE_LIMIT),
                                          ("upstream_unavailable", Status.INFRA_ERROR),
                                          ("auth_error", Status.INFRA_ERROR),
                                          ("invalid_request", None), ("context_window_exceeded", None),
                                          (None, None)])
def test_provider_failures_are_infra_but_model_failures_are_graded(kind, status):
    assert model_error_status(kind) == status


def test_deadline_stops_the_turn_and_returns_only_once_it_ended():
    release = threading.Event()
    result = run_with_deadline(lambda: release.wait(30), 0.3, stop=release.set, grace_s=30)
    assert (result.timeout, result.finish_reason, result.exit_status) == (True, "timeout", "host_deadline")
    assert release.is_set() and "claw-turn" not in {t.name for t in threading.enumerate()}


def test_a_turn_that_ignores_its_stop_is_refused_not_left_running():
    from clawmark.attempts.session import ClawDidNotStop

    release = threading.Event()
    with pytest.raises(ClawDidNotStop, match="still running"):
        run_with_deadline(lambda: release.wait(30), 0.2, stop=lambda: None, grace_s=0.2)
    release.set()


def test_deadline_passes_results_and_errors_through():
    done = TurnResult(success=True, exit_status="submitted")
    assert run_with_deadline(lambda: done, 5) is done
    with pytest.raises(ZeroDivisionError):
        run_with_deadline(lambda: 1 / 0, 5)
