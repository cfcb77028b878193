"""Pieces of the closed-loop attempt that need no container: which model each role gets, the
visible trajectory read from what a claw leaves behind, the outcome's row fields (0-based
best turn, NaN for errors, the error text kept), and its registration's fallback price."""

from __future__ import annotations

import json
import math

import pytest

from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig, open_closed_loop_attempt, role_models
from clawmark.attempts.closed_loop_record import CycleRecord, resolve
from clawmark.attempts.closed_loop_stages import _register
from clawmark.attempts.closed_loop_transcript import visible_messages
from clawmark.catalog import load_task
from clawmark.catalog.task import RoleOverride
from clawmark.claws import TurnResult
from clawmark.gateway.http_chat import chat_completion
from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.prices import Price, UnpricedModel
from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.judge.decision import Decision
from clawmark.results import ResultStore, Status
from clawmark.results.transcript import load as load_transcript
from clawmark.settings import PROJECT_ROOT
from tests.support.gateway_fakes import FakeUpstream

FIXTURE = PROJECT_ROOT / "tests" / "fixtures" / "closed_loop" / "fx_101_sum"


@pytest.fixture(scope="module")
def task():
    return load_task(FIXTURE)


def test_scripted_executor_brings_its_task_family_of_judges(task):
    models = role_models(task, "scripted/cl-{task_id}", ClosedLoopAttemptConfig())
    assert models == {"executor": "scripted/cl-fx_101_sum", "supervisor": "scripted/sup-fx_101_sum",
                      "user_simulator": "scripted/sim-fx_101_sum"}


def test_real_executor_judges_itself_unless_told(task):
    assert set(role_models(task, "openai/gpt-5", ClosedLoopAttemptConfig()).values()) == {"openai/gpt-5"}
    chosen = role_models(task, "openai/gpt-5", ClosedLoopAttemptConfig(supervisor_model="anthropic/opus"))
    assert (chosen["supervisor"], chosen["user_simulator"]) == ("anthropic/opus", "openai/gpt-5")


def test_task_override_of_the_supervisor_model_applies(task):
    codex = task.spec.codex.model_copy(update={"supervisor": RoleOverride(model="openai/o3")})
    overridden = task.model_copy(update={"spec": task.spec.model_copy(update={"codex": codex})})
    assert role_models(overridden, "openai/gpt-5", ClosedLoopAttemptConfig())["supervisor"] == "openai/o3"
    swept = ClosedLoopAttemptConfig(supervisor_model="anthropic/opus")
    assert role_models(overridden, "openai/gpt-5", swept)["supervisor"] == "anthropic/opus"  # the sweep wins


def test_visible_messages_read_unclaimed_session_files_and_save_the_transcript(tmp_path):
    backup = tmp_path / "transcript"
    backup.mkdir()
    (backup / "a.json").write_text(json.dumps({"messages": [{"role": "system", "content": "sys"},
                                                            {"role": "user", "content": "task"}]}))
    (backup / "b.jsonl").write_text(json.dumps({"role": "assistant", "content": "done"}) + "\nnot json\n")
    (backup / "c.log").write_text("plain claw log")
    (backup / ".session.lock").write_text("")
    found = visible_messages(tmp_path)
    assert [(m.role, m.text) for m in found[:2]] == [("user", "task"), ("assistant", "done")]
    assert found[2].role == "assistant" and "plain claw log" in found[2].text and len(found) == 3
    assert load_transcript(tmp_path / "transcript.json") == found


def _decision(verdict: str, score: float, recoverable: bool = True) -> Decision:
    return Decision(verdict=verdict, attempt_state="incomplete" if verdict == "continue" else "complete_and_passed",
                    recoverable=recoverable, score=score, confidence="high", rationale="r")


def test_outcome_row_fields_use_a_zero_based_best_turn(task):
    done = TurnResult(success=True, finish_reason="stop")
    first = CycleRecord.start(0, done, global_cut=False)
    first.cycle.decision, first.cycle.feedback = _decision("continue", 0.4), "more please"
    assert first.decide(followups_left=2) is None
    second = CycleRecord.start(1, done, global_cut=False)
    second.cycle.decision = _decision("pass", 0.95, recoverable=False)
    assert second.decide(followups_left=1) is Status.PASS
    fields = resolve([first, second], task).row_fields()
    assert (fields["status"], fields["score"], fields["best_turn"], fields["turns"]) == (Status.PASS, 0.95, 1, 2)
    assert json.loads(fields["turn_scores"]) == [0.4, 0.95] and fields["followups_used"] == 1


def test_an_error_cycle_keeps_its_message_and_scores_nan(task):
    record = CycleRecord.start(0, TurnResult(success=True, finish_reason="stop"), global_cut=False)
    record.fail_with(Status.INFRA_ERROR, "supervisor: garbage twice", "supervisor_invalid")
    record.decide(followups_left=2)
    outcome = resolve([record], task)
    fields = outcome.row_fields()
    assert (fields["status"], fields["failure_reason"], fields["best_turn"]) == (
        Status.INFRA_ERROR, "supervisor_invalid", None)
    assert math.isnan(fields["score"]) and fields["error_message"] == "supervisor: garbage twice"


def test_a_closed_loop_attempt_is_priced_by_its_fallback_as_a_patch_attempt_is(task, tmp_path):
    """The shared attempt config gives the closed-loop track a fallback price: its registration
    (attempts/gateway_link.register, as the patch track's) prices every role's unpriced model with
    it, and the row says so; without one the gateway refuses the capped unpriced route."""
    unpriced, fallback = "openai/house-model-7b", Price(input=2.0, output=8.0)
    store = ResultStore(tmp_path / "results")
    with FakeUpstream() as upstream, GatewayServer(GatewayConfig(ledger_dir=tmp_path)) as gateway:
        params = {"api_base": upstream.base_url}
        refused = open_closed_loop_attempt(task, "reference", unpriced, 0, store, "unit", gateway,
                                           config=ClosedLoopAttemptConfig(model_params=params))
        assert refused.price_fallback is False
        with pytest.raises(UnpricedModel, match="house-model-7b"):
            _register(refused)
        config = ClosedLoopAttemptConfig(model_params=params, fallback_price=fallback)
        state = open_closed_loop_attempt(task, "reference", unpriced, 0, store, "unit", gateway, config=config)
        assert state.price_fallback is True and state.next_stage == "provision"
        _register(state)
        chat_completion(gateway.base_url(state.attempt_id, "supervisor"), "anything",
                        [{"role": "user", "content": "hi"}], token=state.role_tokens["supervisor"])
        gateway.close_attempt(state.attempt_id, drain_s=5.0)
    (record,) = read_ledger(state.layout.ledger)
    assert record.role == "supervisor" and record.cost_usd == pytest.approx((1000 * 2.0 + 100 * 8.0) / 1e6)


def test_fields_the_closed_loop_protocol_gained_change_no_pin_while_at_their_defaults():
    """stop_grace_s and fallback_price came with the shared base: at their defaults the saved and
    pinned protocol is the one sweeps pinned before them; set, they are part of it."""
    assert not {"stop_grace_s", "fallback_price"} & set(ClosedLoopAttemptConfig().protocol_dump())
    assert ClosedLoopAttemptConfig(stop_grace_s=5).protocol_dump()["stop_grace_s"] == 5
    assert ClosedLoopAttemptConfig().stop_grace_s == 30.0 and ClosedLoopAttemptConfig().deadline_grace_s == 30.0
