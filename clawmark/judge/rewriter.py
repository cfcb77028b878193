"""The deterministic feedback rewriter: its output is the next executor message.

Empty unless the verdict is continue. Otherwise the simulator's feedback (nothing when its mode
is silent) is split into lines, list markers stripped, bare completion phrases ("Done.",
"Thanks!", "完成了") dropped and repeats removed; when nothing is left, a fixed line for the
attempt state in the task's language stands in; at most MAX_LINES lines are kept.
A follow-up the leak audit stopped is redacted here (`redact`), and when the simulator's second
try leaks too, the neutral continue message of the task's language is sent instead.
"""

from __future__ import annotations

import re

from collections.abc import Iterable

from clawmark.judge.fence import Fence
from clawmark.judge.info_firewall import FirewallView
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


NEUTRAL_CONTINUE = {"en": "Please continue with the task.", "zh": "请继续完成这个任务。"}
REDACTED = "[redacted]"


def rewrite(view: FirewallView, sim_out: SimulatorOutput | None, language: str, fence: Fence | None = None) -> str:
    """The next executor message ("" unless verdict is continue). With the attempt's `fence`, any
    fence line or boundary the simulator echoed from its prompt is dropped."""
    if view.verdict != "continue":
        return ""
    feedback = sim_out.feedback if sim_out is not None and sim_out.mode != "silent" else ""
    feedback = fence.strip(feedback) if fence is not None else feedback
    lines = _unique(line for line in _lines(feedback) if not is_bare_completion(line))
    if not lines:
        lines = [FALLBACK["zh" if language == "zh" else "en"][view.attempt_state]]
    return "\n".join(lines[:MAX_LINES])


def neutral_continue(language: str) -> str:
    """What the executor gets when every draft of the follow-up leaked: nothing but 'go on'."""
    return NEUTRAL_CONTINUE["zh" if language == "zh" else "en"]


def redact(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """`text` with every span (merged where they overlap) replaced by REDACTED."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, at = [], 0
    for start, end in merged:
        out += [text[at:start], REDACTED]
        at = end
    return "".join(out) + text[at:]


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
