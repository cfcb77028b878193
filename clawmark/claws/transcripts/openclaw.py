"""OpenClaw's (and so EDICT's) transcript: the ``events.jsonl`` of each trajectory bundle that
``openclaw sessions export-trajectory`` wrote (``openclaw-trajectory-<agent>/``).

Its lines are ``{type, source, data, ts, ...}``; the conversation is the ``source: transcript``
events ``user.message``, ``assistant.message`` (text and ``toolCall`` parts) and ``tool.result``
(a ``toolResult`` message). ``tool.call`` repeats the assistant's call and runtime events are
OpenClaw's own bookkeeping, so both are left out. EDICT's roles each have a bundle: their
messages are merged in time order, each named by its agent. OpenClaw's export redacts text that
looks like broken JSON (``[Malformed diagnostic JSON redacted]``); that is what it exported.

OpenClaw 2026.3.x (UniClawBench's pin) has no export: its session files themselves are saved
(``openclaw-sessions-<agent>/…/<session id>.jsonl``). Their lines are ``{type, id, timestamp, ...}``;
the conversation is the ``type: message`` lines, whose ``message`` has the same shape as an
exported event's (``role`` user / assistant / toolResult, ``content`` parts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clawmark.claws.transcripts.session_files import json_lines
from clawmark.results.transcript import ToolCall, TranscriptMessage, arguments_text, content_text

BUNDLE_PREFIX = "openclaw-trajectory-"
SESSIONS_PREFIX = "openclaw-sessions-"
SINGLE_AGENT = "main"  # OpenClaw's default agent: no name to show
MESSAGE_EVENTS = {"user.message", "assistant.message", "tool.result"}


def read_bundles(bundles: list[Path]) -> list[TranscriptMessage]:
    timed: list[tuple[str, int, TranscriptMessage]] = []
    for bundle in bundles:
        agent = bundle.name.removeprefix(BUNDLE_PREFIX)
        for seq, event in enumerate(json_lines(bundle / "events.jsonl")):
            message = _message(event, None if agent == SINGLE_AGENT else agent)
            if message is not None:
                timed.append((str(event.get("ts") or ""), seq, message))
    return [message for _ts, _seq, message in sorted(timed, key=lambda item: (item[0], item[1]))]


def read_session_folders(folders: list[Path]) -> list[TranscriptMessage]:
    """The messages of every session file in ``openclaw-sessions-<agent>`` folders, in time order."""
    timed: list[tuple[str, int, TranscriptMessage]] = []
    for folder in folders:
        agent = folder.name.removeprefix(SESSIONS_PREFIX)
        files = sorted(p for p in folder.rglob("*.jsonl") if p.is_file() and not p.is_symlink())
        for seq, line in enumerate(line for path in files for line in json_lines(path)):
            message = line.get("message") if line.get("type") == "message" else None
            kind = _SESSION_ROLES.get(message.get("role")) if isinstance(message, dict) else None
            if kind is not None:
                converted = _converted(kind, message, None if agent == SINGLE_AGENT else agent)
                timed.append((str(line.get("timestamp") or ""), seq, converted))
    return [message for _ts, _seq, message in sorted(timed, key=lambda item: (item[0], item[1]))]


_SESSION_ROLES = {"user": "user.message", "assistant": "assistant.message", "toolResult": "tool.result"}


def _message(event: dict[str, Any], agent: str | None) -> TranscriptMessage | None:
    if event.get("source") != "transcript" or event.get("type") not in MESSAGE_EVENTS:
        return None
    data = event.get("data")
    message = data.get("message") if isinstance(data, dict) else None
    if not isinstance(message, dict):
        return None
    return _converted(event["type"], message, agent)


def _converted(kind: str, message: dict[str, Any], agent: str | None) -> TranscriptMessage:
    """One OpenClaw message (``kind`` its event type) as a transcript message."""
    content = message.get("content")
    parts = content if isinstance(content, list) else []
    if kind == "tool.result":
        return TranscriptMessage(role="tool", text=content_text(content), agent=agent,
                                 tool_call_id=_text(message.get("toolCallId")), tool_name=_text(message.get("toolName")))
    calls = [ToolCall(name=_text(part.get("name")) or "?", arguments=arguments_text(part.get("arguments")),
                      id=_text(part.get("id")))
             for part in parts if isinstance(part, dict) and part.get("type") == "toolCall"]
    text = content if isinstance(content, str) else "".join(
        part["text"] for part in parts if isinstance(part, dict) and part.get("type") == "text"
        and isinstance(part.get("text"), str))
    role = "user" if kind == "user.message" else "assistant"
    return TranscriptMessage(role=role, text=text, tool_calls=calls, agent=agent)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
