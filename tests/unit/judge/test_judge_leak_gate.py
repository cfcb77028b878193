"""A follow-up whose leak audit fires is never sent: the flagged spans are redacted, the simulator
is asked once more with the reasons (never the spans), and a second leak sends the neutral
continue message. The simulator is scripted behind the real gateway; its requests are read as
the model received them."""

from __future__ import annotations

from clawmark.judge.chat import gateway_chat
from clawmark.judge.evidence import Evidence
from clawmark.judge.fence import Fence
from clawmark.judge.info_firewall import firewall
from clawmark.judge.followup import gated_follow_up
from clawmark.judge.leak_audit import find_leaks
from clawmark.judge.rewriter import NEUTRAL_CONTINUE, redact
from tests.support.judge_tasks import write_task
from tests.unit.judge.test_judge_fence import provider, request_text  # noqa: F401
from tests.unit.judge.test_judge_gateway import cassettes, gateway, judge_view, sim_json  # noqa: F401

RUBRIC_LINE = "The grand total must equal the sum of every invoice line in the ledger."
RUBRIC_LINE_ZH = "结果文件必须包含每一张发票的金额合计"
CLEAN = "Could you also say which rows you left out?"


def follow_up(tmp_path, gateway, attempt: str, model: str, task=None):  # noqa: F811
    task = task or write_task(tmp_path / "pkg")
    gateway.register_attempt(attempt, role_models={"user_simulator": model})
    seen = Evidence.from_attempt([{"role": "assistant", "content": "I saved summary.json with the total."}], None)
    return gated_follow_up(task, firewall(judge_view()), seen, gateway_chat(gateway.base_url(attempt, "user_simulator"),
                           model), turn=1, max_turns=3, snapshot=False, fence=Fence.new())


def test_redaction_covers_every_flagged_span(tmp_path):
    assert redact("abcdefgh", [(5, 7), (1, 3), (2, 4)]) == "a[redacted]e[redacted]h"
    task = write_task(tmp_path / "pkg")
    text = f"Thanks. {RUBRIC_LINE} See answer_key.json, C2."
    leaks = find_leaks(text, task)
    assert {leak.kind for leak in leaks} == {"rubric_ngram", "reference_name", "check_name"}
    assert redact(text, [s for leak in leaks for s in leak.spans]) == "Thanks. [redacted]. See [redacted], [redacted]."


def test_a_clean_draft_is_sent_as_it_is(tmp_path, gateway, cassettes, provider):  # noqa: F811
    sent = follow_up(tmp_path, gateway, "g0", cassettes("sim-clean", [{"content": sim_json(CLEAN)}]))
    assert (sent.message, sent.sent, sent.blocked, sent.flags) == (CLEAN, "simulator", 0, [])
    assert len(provider.requests("sim-clean")) == 1


def test_a_leaking_draft_is_redacted_and_the_clean_retry_is_sent(tmp_path, gateway, cassettes, provider):  # noqa: F811
    model = cassettes("sim-retry", [{"match": "SIMULATOR LEAK RETRY", "content": sim_json(CLEAN)},
                                    {"content": sim_json(f"Please fix it. {RUBRIC_LINE} Check answer_key.json.")}])
    sent = follow_up(tmp_path, gateway, "g1", model)
    assert (sent.message, sent.sent, sent.blocked) == (CLEAN, "simulator_retry", 1)
    assert any(f.startswith("rubric_ngram:") for f in sent.flags) and "reference_name: 'answer_key.json'" in sent.flags
    assert sent.flags[-1] == "followup_blocked: turn 1 draft redacted, the retry was clean and sent"
    assert [d.redacted for d in sent.blocked_drafts] == ["Please fix it. [redacted]. Check [redacted]."]
    first, retry = (request_text(r, "user") for r in provider.requests("sim-retry"))
    assert "SIMULATOR LEAK RETRY" in retry and "│ Please fix it. [redacted]. Check [redacted]." in retry
    assert "a passage of a private document you never wrote or saw" in retry
    assert "grand total must equal" not in retry and "answer_key" not in retry  # the reason never repeats the leak


def test_a_retry_that_still_leaks_sends_the_neutral_continue_message(tmp_path, gateway, cassettes, provider):  # noqa: F811
    task = write_task(tmp_path / "zh", "zh_201_judge", language="zh", checks=None)
    model = cassettes("sim-stubborn", [{"content": sim_json(f"请注意：{RUBRIC_LINE_ZH}。")}])
    sent = follow_up(tmp_path, gateway, "g2", model, task)
    assert (sent.message, sent.sent, sent.blocked) == (NEUTRAL_CONTINUE["zh"], "neutral", 2)
    assert sum(f.startswith("rubric_ngram:") for f in sent.flags) == 2
    assert sent.flags[-1] == "followup_blocked: turn 1 retry still leaked, the neutral continue message was sent"
    assert [d.redacted for d in sent.blocked_drafts] == ["请注意：[redacted]。"] * 2
    assert len(provider.requests("sim-stubborn")) == 2
