"""Supervisor and user simulator through the real gateway (role URLs, ledger) to the scripted
backend, with cassettes written into a tmp folder; a spy around the ChatFn records what was sent."""

from __future__ import annotations

import json

import pytest
import yaml

from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.judge.chat import gateway_chat, role_settings
from clawmark.judge.checks import CheckResult
from clawmark.judge.decision import Decision
from clawmark.judge.evidence import Evidence
from clawmark.judge.info_firewall import firewall
from clawmark.judge.simulator import SimulatorFailed, simulate
from clawmark.judge.supervisor import SupervisorFailed, judge_turn
from tests.support.judge_tasks import write_results, write_task
from tests.support.scripted_server import own_scripted_model
from tests.unit.judge.test_judge_evidence import PNG

SNAPSHOT = "Use the offline snapshot sources/ledger_snapshot.json and save /tmp_workspace/results/summary.json."


def decision_json(verdict: str, score: float, **extra) -> str:
    return json.dumps({"verdict": verdict, "attempt_state": "complete_and_passed" if verdict == "pass" else "incomplete",
                       "recoverable": verdict != "pass", "score": score, "confidence": "high",
                       "rationale": "C3 notes are missing", "missing_artifacts": ["notes.md"],
                       "guidance_tags": ["missing_output"]} | extra)


def judge_view() -> Decision:
    return Decision.model_validate(json.loads(decision_json("continue", 0.4)))


def sim_json(feedback: str, mode: str = "instruction") -> str:
    return json.dumps({"mode": mode, "tone": "polite", "feedback": feedback, "public_points": ["notes"]},
                      ensure_ascii=False)


@pytest.fixture
def cassettes(tmp_path, monkeypatch):
    folder = tmp_path / "cassettes"
    folder.mkdir()
    monkeypatch.setenv("CLAWMARK_CASSETTES", str(folder))

    def write(name: str, steps: list[dict]) -> str:
        (folder / f"{name}.yaml").write_text(yaml.safe_dump({"steps": steps}, allow_unicode=True), encoding="utf-8")
        return f"scripted/{name}"

    return write


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    with own_scripted_model(), GatewayServer(GatewayConfig(ledger_dir=tmp_path_factory.mktemp("ledgers"))) as gw:
        yield gw


class Spy:
    """Records the messages of each call, then makes the real call."""

    def __init__(self, chat):
        self.chat, self.sent = chat, []

    def __call__(self, messages):
        self.sent.append(messages)
        return self.chat(messages)

    def user_text(self, call: int = 0) -> str:
        content = self.sent[call][-1]["content"]
        return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def role_chat(gw, attempt: str, role: str, model: str) -> Spy:
    gw.register_attempt(attempt, role_models={role: model})
    return Spy(gateway_chat(gw.base_url(attempt, role), model, timeout_s=120))  # a hang: pytest-timeout (90 s in run-tests.sh) dumps the threads first


def evidence(tmp_path, files: dict | None = None) -> Evidence:
    results = write_results(tmp_path / "results", files or {"summary.json": json.dumps({"total": 790.0})})
    return Evidence.from_attempt([{"role": "assistant", "content": "Saved summary.json."}], results)


def test_supervisor_reads_snapshot_task_rubric_checks_and_images(tmp_path, gateway, cassettes):
    task = write_task(tmp_path / "pkg", snapshot_text=SNAPSHOT,
                      extra_references={"hint.md": "East region is the decoy."})
    model = cassettes("sup-judge", [{"match": "EXECUTOR TURN 2 OF 3", "content": decision_json("pass", 0.95)}])
    spy = role_chat(gateway, "s1", "supervisor", model)
    checks = [CheckResult(id="summary_exists", checkpoint="C1", passed=True, detail="exists (17 bytes)"),
              CheckResult(id="total_matches", checkpoint="C2", passed=True, detail="equals the reference")]
    seen = evidence(tmp_path, {"summary.json": '{"total": 790.0}', "chart.png": PNG})
    judgement = judge_turn(task, seen, checks, spy, turn=2, max_turns=3, snapshot=True)
    # 0.2 + 0.5 in code, 0.95 x 0.3 from the supervisor
    assert judgement.score.final == pytest.approx(0.985) and judgement.decision.score == pytest.approx(0.985)
    assert (judgement.decision.verdict, judgement.supervisor_decision.score, judgement.repaired) == ("pass", 0.95, False)
    text = spy.user_text()
    assert text.startswith("EXECUTOR TURN 2 OF 3\nTASK en_101_judge\n")
    assert SNAPSHOT in text and task.spec.task not in text  # defect 3: the snapshot text
    assert "the grand total must equal the sum of every invoice line" in text and "East region is the decoy." in text
    assert '- total_matches [C2]: PASS — "equals the reference"' in text
    assert "Checkpoints C1, C2 are scored in code from the checks. Your score rates only the other checkpoints (C3)" in text
    assert any(p.get("type") == "image_url" for p in spy.sent[0][-1]["content"])
    [record] = read_ledger(gateway.ledger_path("s1"))
    assert (record.role, record.model, record.status) == ("supervisor", model, "ok")


def test_supervisor_garbage_twice_is_a_typed_failure(tmp_path, gateway, cassettes):
    task = write_task(tmp_path / "pkg")
    model = cassettes("sup-garbage", [{"content": "The executor did well, I'd say 8/10."},
                                      {"content": '{"verdict": "pass", "score": 8}'}])
    spy = role_chat(gateway, "s2", "supervisor", model)
    with pytest.raises(SupervisorFailed) as failure:
        judge_turn(task, evidence(tmp_path), [], spy, turn=1, max_turns=3, snapshot=False)
    assert failure.value.raw_outputs == ["The executor did well, I'd say 8/10.", '{"verdict": "pass", "score": 8}']
    assert "SUPERVISOR REPAIR" in spy.user_text(1) and "no JSON object" in spy.user_text(1)
    assert "EXECUTOR TURN 1 OF 3" in spy.user_text(1)
    assert [r.role for r in read_ledger(gateway.ledger_path("s2"))] == ["supervisor", "supervisor"]


def test_one_repair_then_a_valid_decision_and_code_caps_a_pass(tmp_path, gateway, cassettes):
    task = write_task(tmp_path / "pkg")
    model = cassettes("sup-repair", [{"match": "SUPERVISOR REPAIR", "content": decision_json("pass", 1.0)},
                                     {"content": "not json"}])
    spy = role_chat(gateway, "s3", "supervisor", model)
    checks = [CheckResult(id="summary_exists", passed=True), CheckResult(id="total_matches", passed=False)]
    judgement = judge_turn(task, evidence(tmp_path), checks, spy, turn=1, max_turns=3, snapshot=False)
    assert judgement.repaired and judgement.raw_outputs[0] == "not json"
    assert judgement.score.final == pytest.approx(0.3) and judgement.score.caps_applied == ["total_matches"]
    # the supervisor said pass; code put it under the threshold: a recoverable fail -> continue
    assert (judgement.decision.verdict, judgement.decision.recoverable, judgement.supervisor_decision.verdict) == (
        "continue", True, "pass")


def test_task_overrides_reach_the_supervisor(tmp_path, gateway, cassettes):
    task = write_task(tmp_path / "pkg", codex={"max_user_followups": 1, "supervisor": {
        "model": "scripted/sup-override", "instructions": "Be strict about notes.md.", "reasoning_effort": "high"}})
    settings = role_settings(task, "supervisor", "scripted/sup-default")
    assert (settings.model, settings.params()) == ("scripted/sup-override", {"reasoning_effort": "high"})
    cassettes("sup-override", [{"content": decision_json("continue", 0.5)}])
    gateway.register_attempt("s4", role_models={"supervisor": settings.model})
    spy = Spy(gateway_chat(gateway.base_url("s4", "supervisor"), settings.model, **settings.params()))
    judge_turn(task, evidence(tmp_path), [], spy, turn=1, max_turns=2, snapshot=False)
    assert spy.sent[0][0]["content"].endswith("Task-specific instructions:\nBe strict about notes.md.")
    assert read_ledger(gateway.ledger_path("s4"))[0].model == "scripted/sup-override"


def test_simulator_speaks_behind_the_firewall(tmp_path, gateway, cassettes):
    task = write_task(tmp_path / "pkg")
    model = cassettes("sim-judge", [{"match": "STATE continue/incomplete",
                                     "content": sim_json("Could you also add a short note on the rows you left out?")}])
    spy = role_chat(gateway, "u1", "user_simulator", model)
    view = firewall(judge_view())
    out = simulate(task, view, evidence(tmp_path), spy, turn=1, max_turns=3)
    assert (out.mode, out.flags, out.feedback) == ("instruction", [], "Could you also add a short note on the rows you left out?")
    sent = json.dumps(spy.sent, ensure_ascii=False)
    assert "USER SIMULATOR AFTER EXECUTOR TURN 1 OF 3" in sent and "C3 notes are missing" not in sent
    assert "grand total must equal" not in sent and "answer_key" not in sent
    assert read_ledger(gateway.ledger_path("u1"))[0].role == "user_simulator"


def test_simulator_in_the_wrong_language_is_flagged(tmp_path, gateway, cassettes):
    task = write_task(tmp_path / "pkg", "zh_201_judge", language="zh", checks=None)
    model = cassettes("sim-wrong", [{"content": sim_json("Please add the notes file as well.")}])
    spy = role_chat(gateway, "u2", "user_simulator", model)
    view = firewall(judge_view())
    out = simulate(task, view, evidence(tmp_path), spy, turn=1, max_turns=3)
    assert out.flags == ["wrong_language: expected zh, got en"]
    assert "Chinese (简体中文)" in spy.sent[0][0]["content"]


def test_simulator_garbage_twice_is_a_typed_failure(tmp_path, gateway, cassettes):
    task = write_task(tmp_path / "pkg")
    model = cassettes("sim-garbage", [{"content": "sure!"}, {"content": '{"mode": "shout"}'}])
    with pytest.raises(SimulatorFailed) as failure:
        simulate(task, firewall(judge_view()), evidence(tmp_path), role_chat(gateway, "u3", "user_simulator", model),
                 turn=1, max_turns=3)
    assert len(failure.value.raw_outputs) == 2


def test_a_model_error_is_raised_typed_not_taken_for_an_invalid_decision(tmp_path, gateway, cassettes):
    from clawmark.gateway.errors import InvalidRequest
    from clawmark.judge.outcome import error_status

    task = write_task(tmp_path / "pkg")
    model = cassettes("sup-silent", [{"match": "EXECUTOR TURN 9 OF 9", "content": decision_json("pass", 1.0)}])
    with pytest.raises(InvalidRequest) as failure:
        judge_turn(task, evidence(tmp_path), [], role_chat(gateway, "s5", "supervisor", model), turn=1, max_turns=3,
                   snapshot=False)
    assert error_status(failure.value).value == "infra_error"
