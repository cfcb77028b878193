"""The deterministic feedback rewriter: its output is the next executor message.

Empty unless the verdict is continue. Otherwise the simulator's feedback (nothing when its mode
is silent) is split into lines, list markers stripped, bare completion phrases ("Done.",
"Thanks!", "完成了") dropped and repeats removed; when nothing is left, a fixed line for the
attempt state in the task's language stands in; at most MAX_LINES lines are kept.
"""

from __future__ import annotations

import re

from clawmark.judge.firewall import FirewallView
from clawmark.judge.simulator import SimulatorOutput

MAX_LINES = 3
_MARKER = re.compile(r"^\s*(?:[-*•·]+|\d+[.)、]|[（(]\d+[)）])\s*")
_PUNCT = re.compile(r"[\s\W_]+", re.UNICODE)
COMPLETION_PHRASES = frozenset({
    "done", "all done", "task done", "task complete", "task completed", "complete", "completed", "finished",
    "looks good", "looks great", "great", "great job", "good job", "nice work", "well done", "perfect",
    "thanks", "thank you", "ok", "okay", "lgtm",
    "完成", "完成了", "已完成", "任务完成", "任务已完成", "好的", "很好", "不错", "谢谢", "辛苦了", "做得好", "没问题",
})
FALLBACK = {
    "en": {
        "in_progress": "Please continue and finish every part of what I asked for.",
        "incomplete": "It isn't finished yet: please complete the remaining parts and save the results "
                      "in /tmp_workspace/results/.",
        "complete_but_failed": "Please check your results against my original request and fix what doesn't match.",
        "terminal_failure": "Please try again and finish the task as I asked.",
        "complete_and_passed": "Please check once more that everything I asked for is done.",
    },
    "zh": {
        "in_progress": "请继续，把我要求的每一部分都完成。",
        "incomplete": "还没有完成：请把剩下的部分做完，并把结果保存到 /tmp_workspace/results/。",
        "complete_but_failed": "请对照我最初的要求检查你的结果，并修正不符合的地方。",
        "terminal_failure": "请再试一次，按我的要求完成这个任务。",
        "complete_and_passed": "请再检查一遍，确认我要求的内容都已完成。",
    },
}


def rewrite(view: FirewallView, sim_out: SimulatorOutput | None, language: str) -> str:
    """The next executor message ("" unless verdict is continue)."""
    if view.verdict != "continue":
        return ""
    feedback = sim_out.feedback if sim_out is not None and sim_out.mode != "silent" else ""
    lines = _unique(line for line in _lines(feedback) if not is_bare_completion(line))
    if not lines:
        lines = [FALLBACK["zh" if language == "zh" else "en"][view.attempt_state]]
    return "\n".join(lines[:MAX_LINES])


def _lines(text: str) -> list[str]:
    return [stripped for raw in text.splitlines() if (stripped := _MARKER.sub("", raw).strip())]


def _key(line: str) -> str:
    return _PUNCT.sub(" ", line.casefold()).strip()


def is_bare_completion(line: str) -> bool:
    return _key(line) in COMPLETION_PHRASES or not _key(line)


def _unique(lines) -> list[str]:
    seen: set[str] = set()
    kept = []
    for line in lines:
        if _key(line) not in seen:
            seen.add(_key(line))
            kept.append(line)
    return kept
