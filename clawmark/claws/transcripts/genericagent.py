"""GenericAgent's transcript: its task folder (``genericagent-session/<task>/``), where round 0's
message is ``input.txt`` and round N's reply stream is ``output.txt``, ``output1.txt``, ...

A round's output is GenericAgent's display: one ``**LLM Running (Turn K) ...**`` block per model
call, each the model's text and, for a tool call, a line naming the tool and its arguments in a
````text fence. GenericAgent keeps neither the follow-up messages (``reply.txt`` is removed once
read) nor the tool results (not displayed) in files, so those are absent here; its ``memory/``
folder is its long-term store, not this conversation."""

from __future__ import annotations

import re
from pathlib import Path

from clawmark.claws.transcripts.session_files import read_text
from clawmark.results.transcript import ToolCall, TranscriptMessage

ROUND_END = "[ROUND END]"
LLM_CALL = re.compile(r"^\*\*LLM Running \(Turn \d+\) \.\.\.\*\*\s*$", re.M)
TOOL_CALL = re.compile(r"🛠️ \*\*正在调用工具:\*\* `([^`]*)`\s*📥\*\*参数:\*\*\s*````text\n(.*?)\n````", re.S)
OUTPUT = re.compile(r"output(\d*)\.txt")


def read_session(folder: Path) -> list[TranscriptMessage]:
    messages: list[TranscriptMessage] = []
    for task in sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink() and p.name != "memory"):
        if (task / "input.txt").is_file():
            messages.append(TranscriptMessage(role="user", text=read_text(task / "input.txt").strip()))
        for output in sorted((p for p in task.iterdir() if OUTPUT.fullmatch(p.name)), key=_round):
            messages += _round_messages(read_text(output))
    return messages


def _round(path: Path) -> int:
    return int(OUTPUT.fullmatch(path.name)[1] or 0)  # type: ignore[index]


def _round_messages(output: str) -> list[TranscriptMessage]:
    """One assistant message per model call of the round."""
    found = []
    for block in LLM_CALL.split(output.replace(ROUND_END, "")):
        calls = [ToolCall(name=name, arguments=arguments.strip()) for name, arguments in TOOL_CALL.findall(block)]
        text = TOOL_CALL.sub("", block).strip()
        if text or calls:
            found.append(TranscriptMessage(role="assistant", text=text, tool_calls=calls))
    return found
