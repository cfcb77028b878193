"""The follow-up channel: language detection, the deterministic rewriter and the leak audit."""

from __future__ import annotations

import pytest

from clawmark.catalog.task import parse_category
from clawmark.judge.info_firewall import FirewallView
from clawmark.judge.leak_audit import audit_followup
from clawmark.judge.rewriter import FALLBACK, rewrite
from clawmark.judge.simulator import SimulatorOutput
from clawmark.language import detect_language
from tests.support.judge_tasks import write_task

CONTINUE = FirewallView(verdict="continue", attempt_state="incomplete", recoverable=True, score=0.4)


def said(feedback: str, mode: str = "instruction") -> SimulatorOutput:
    return SimulatorOutput(mode=mode, feedback=feedback)


@pytest.mark.parametrize("text, language", [
    ("Please also write notes.md explaining the excluded rows.", "en"),
    ("请在 /tmp_workspace/results/summary.json 里加上 total 字段。", "zh"),
    ("请检查 `summary.json` 和 notes.md", "zh"),
    ("Bitte prüfen Sie die Summe.", "en"),  # Latin script
    ("/tmp_workspace/results/ 12.5", None),
])
def test_detect_language_ignores_paths_and_code(text, language):
    assert detect_language(text) == language


def test_rewriter_is_empty_unless_continue():
    for verdict, state in (("pass", "complete_and_passed"), ("fail", "terminal_failure")):
        view = FirewallView(verdict=verdict, attempt_state=state, recoverable=False, score=0.9)
        assert rewrite(view, said("More please."), "en") == ""


def test_rewriter_drops_completion_phrases_duplicates_and_keeps_three_lines():
    feedback = ("Thanks!\n- The total looks off: recheck the March rows.\n\nDone.\n"
                "* The total looks off: recheck the March rows!\n1. Also save notes.md.\n"
                "Please keep the currency.\nAnd one more thing.")
    assert rewrite(CONTINUE, said(feedback), "en") == (
        "The total looks off: recheck the March rows.\nAlso save notes.md.\nPlease keep the currency.")


def test_rewriter_falls_back_per_state_and_language():
    assert rewrite(CONTINUE, said("完成了！\n谢谢"), "zh") == FALLBACK["zh"]["incomplete"]
    assert rewrite(CONTINUE, said("Fix it all.", mode="silent"), "en") == FALLBACK["en"]["incomplete"]
    failed = CONTINUE.model_copy(update={"attempt_state": "complete_but_failed"})
    assert rewrite(failed, None, "en") == FALLBACK["en"]["complete_but_failed"]
    assert set(FALLBACK["en"]) == set(FALLBACK["zh"])


def test_leak_audit_catches_a_follow_up_quoting_the_rubric(tmp_path):
    task = write_task(tmp_path)
    leak = "Hmm, the grand total must equal the sum of every invoice line in the ledger, can you redo it?"
    flags = audit_followup(leak, task)
    assert flags == ["rubric_ngram: 'the grand total must equal the sum of every invoice line in the ledger'"]
    said_before = "[assistant] I made sure the grand total must equal the sum of every invoice line in the ledger."
    assert audit_followup(leak, task, visible=said_before) == []


def test_leak_audit_names_references_checks_and_scores(tmp_path):
    task = write_task(tmp_path)
    flags = audit_followup("Compare with answer_key.json: total_matches failed, C2 gives 0.65 (65%) of the score.",
                           task)
    assert flags == ["reference_name: 'answer_key.json'", "check_name: 'total_matches'", "check_name: 'C2'",
                     "score_number: '0.65'", "score_number: '65%'", "judge_word: 'score'"]


def test_leak_audit_catches_chinese_rubric_quotes(tmp_path):
    task = write_task(tmp_path, "zh_201_judge", language="zh", checks=None)
    assert audit_followup("请注意：结果文件必须包含每一张发票的金额合计，谢谢", task) == [
        "rubric_ngram: '结果文件必须包含每一张发票的金额合计'"]
    assert audit_followup("请再核对一下金额，把结果保存好。", task) == []


def test_clean_follow_ups_and_public_wording_pass(tmp_path):
    task = write_task(tmp_path)
    clean = ["Please also explain which invoices you left out, in a short note.",
             "The total in summary.json looks wrong to me; can you add up sources/ledger.csv again?",
             "Add up the invoices in sources/ledger.csv and save /tmp_workspace/results/summary.json please."]
    assert [audit_followup(text, task) for text in clean] == [[], [], []]


@pytest.mark.parametrize("text", [
    "请检查结果 then run tests",  # the task rule once called this English, the follow-up rule Chinese
    "Fix 两个 bugs in the parser",
    "请把 report.md 的 total 字段改成 42",
    "Please update `summary.json`, 谢谢",
])
def test_task_language_and_followup_language_agree_on_mixed_text(text):
    assert parse_category("001_smoketest", text)[0] == (detect_language(text) or "en")
