"""The report's count of follow-ups the leak audit stopped, per claw × model, on hand-made rows."""

from __future__ import annotations

import json

from analysis.followup_leaks import followup_leak_table
from clawmark.results import to_frame, to_table
from clawmark.results.synthetic import example_row

RETRY = "followup_blocked: turn 1 draft redacted, the retry was clean and sent"
NEUTRAL = "followup_blocked: turn 2 retry still leaked, the neutral continue message was sent"


def _row(task, model, blocked, flags, followups=2):
    return example_row(task_id=task, model=model, status="fail", score=0.2, turns=followups + 1,
                       followups_used=followups, followup_leak_blocked=blocked,
                       leak_flags=None if flags is None else json.dumps(flags))


def test_stopped_follow_ups_are_counted_per_claw_and_model():
    frame = to_frame(to_table([
        _row("t1", "m1", 3, ["rubric_ngram: 'x'", RETRY, "judge_word: 'rubric'", NEUTRAL]),  # retry, then neutral
        _row("t2", "m1", 0, []),
        _row("t3", "m1", None, None),  # written before the column existed: not checked
        _row("t1", "m2", 1, ["score_number: '0.65'", RETRY], followups=1),
    ]))
    table = followup_leak_table(frame).set_index("model")
    assert table.loc["m1", ["rows", "rows_checked", "followups_sent", "drafts_blocked", "retry_sent", "neutral_sent",
                            "rows_blocked"]].tolist() == [3, 2, 6, 3, 1, 1, 1]
    assert table.loc["m2", ["drafts_blocked", "retry_sent", "neutral_sent", "rows_blocked"]].tolist() == [1, 1, 0, 1]


def test_a_sweep_without_closed_loop_rows_has_an_empty_table():
    frame = to_frame(to_table([example_row(track="patch", status="resolved", task_id="r1")]))
    assert followup_leak_table(frame).empty


def test_the_report_shows_the_table(tmp_path):
    from analysis.report import build_report

    frame = to_frame(to_table([_row("t1", "m1", 2, ["rubric_ngram: 'x'", NEUTRAL.replace("turn 2", "turn 1")])]))
    index = build_report(frame, tmp_path / "report", n_boot=20)
    assert "Follow-ups stopped by the leak audit" in index.read_text(encoding="utf-8")
    saved = (tmp_path / "report" / "tables" / "followup_leaks.csv").read_text().splitlines()
    assert saved[0].endswith("drafts_blocked,retry_sent,neutral_sent,rows_blocked") and saved[1].endswith(",2,0,1,1")
