"""The judge on the 43 real UniClawBench tasks of the public sample: a follow-up that plants one
rubric line is flagged for every task, plain follow-ups are not; the supervisor request builds."""

from __future__ import annotations

import re

import pytest

from clawmark.catalog.package import load_tasks
from clawmark.judge.leak_audit import audit_followup
from clawmark.language import is_cjk
from tests.support.paths import UCB_SAMPLE

SAMPLE = UCB_SAMPLE
CLEAN = {
    "en": ["Thanks, but I don't see the final file in the results folder yet. Could you finish it and save it there?",
           "Please double-check the numbers against the source files and explain briefly how you got them."],
    "zh": ["我在结果文件夹里还没看到最终文件，请完成后保存到那里。", "请再核对一下数字，并简单说明你是怎么得到的。"],
}


@pytest.fixture(scope="module")
def tasks():
    loaded = load_tasks(SAMPLE)
    assert len(loaded) == 43
    return loaded


def planted_line(rule: str, public: str) -> str:
    """A middle rubric line long enough to be a quote (8+ words or 15+ CJK characters), not from the task."""
    def long_enough(line: str) -> bool:
        return len(re.findall(r"[A-Za-z]+", line)) >= 8 or sum(map(is_cjk, line)) >= 15
    lines = [s for s in (raw.strip(" -*|#") for raw in rule.splitlines()) if long_enough(s) and s not in public]
    return lines[len(lines) // 2]


def test_a_planted_rubric_line_is_flagged_in_every_sample_task(tasks):
    missed = [t.task_id for t in tasks
              if not audit_followup("Also: " + planted_line(t.rubric.raw_text, t.spec.task), t)]
    assert missed == []


def test_plain_follow_ups_and_the_fallback_lines_are_clean_in_every_sample_task(tasks):
    from clawmark.judge.rewriter import FALLBACK, NEUTRAL_CONTINUE

    said = {lang: CLEAN[lang] + list(FALLBACK[lang].values()) + [NEUTRAL_CONTINUE[lang]] for lang in CLEAN}
    flagged = {t.task_id: flags for t in tasks for text in said[t.language] if (flags := audit_followup(text, t))}
    assert flagged == {}


def test_the_supervisor_request_builds_for_every_sample_task(tasks):
    from clawmark.judge.evidence import Evidence
    from clawmark.judge.fence import Fence
    from clawmark.judge.supervisor import request_text, turn_anchors

    empty = Evidence.from_attempt([], None)
    snapshots = 0
    for task in tasks:
        text = request_text(task, empty, [], turn_anchors(task, 1, 3), snapshot=True, fence=Fence.new())
        assert task.rubric.raw_text in text and f"TASK {task.task_id}" in text
        assert task.prompt(snapshot=True) in text
        if task.spec.task_snapshot:
            snapshots += 1
            assert task.spec.task not in text  # defect 3: the live text is not what the supervisor reads
    assert snapshots >= 1
