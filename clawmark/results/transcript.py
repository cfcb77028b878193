"""One executor transcript for every claw: the messages and tool calls of its turns, whatever the
claw's native session format (the normalisers are in :mod:`clawmark.claws.transcripts`).

The judge's evidence, ``clawmark show`` and the report read this one shape, saved per cycle as
``cycles/<n>/transcript.json``. System prompts are not part of it: they are the claw's, not the
executor's visible work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

Role = Literal["user", "assistant", "tool"]


class ToolCall(BaseModel):
    name: str
    arguments: str = Field("", description="As the model wrote them (JSON text for most claws).")
    id: str | None = None


class TranscriptMessage(BaseModel):
    role: Role
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = Field(None, description="For a tool result: the call it answers.")
    tool_name: str | None = Field(None, description="For a tool result: the tool that produced it.")
    agent: str | None = Field(None, description="Which of a multi-agent claw's agents (EDICT's roles) it is.")


MESSAGES = TypeAdapter(list[TranscriptMessage])


def arguments_text(arguments: object) -> str:
    """Tool-call arguments as text: strings as they are, anything else as compact JSON."""
    if arguments is None:
        return ""
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False, default=str)


def content_text(content: object) -> str:
    """Text of an OpenAI- or Anthropic-shaped content (a string or a list of parts); an image part
    becomes ``[image]``, any other non-text part a placeholder naming its type."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_part_text(part) for part in content)
    return json.dumps(content, ensure_ascii=False, default=str)


def _part_text(part: object) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return ""
    if isinstance(part.get("text"), str):
        return part["text"]
    kind = str(part.get("type") or "part")
    return "[image]" if "image" in kind else f"[{kind}]"


def from_openai(messages: list[Any]) -> list[TranscriptMessage]:
    """OpenAI chat messages (role, content, tool_calls, tool_call_id) in the one shape; system
    messages and anything that is not a message are left out."""
    found: list[TranscriptMessage] = []
    names: dict[str, str] = {}  # tool call id -> tool name, for results that do not repeat it
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant", "tool"):
            continue
        listed = message.get("tool_calls") if isinstance(message.get("tool_calls"), list) else []
        calls = [ToolCall(name=_text_or_none(fn.get("name")) or "?", arguments=arguments_text(fn.get("arguments")),
                          id=_text_or_none(call.get("id")))
                 for call in listed if isinstance(call, dict)
                 for fn in [call.get("function") if isinstance(call.get("function"), dict) else call]]
        names.update({call.id: call.name for call in calls if call.id})
        call_id = _text_or_none(message.get("tool_call_id"))
        name = _text_or_none(message.get("name") or message.get("tool_name")) or names.get(call_id or "")
        found.append(TranscriptMessage(role=message["role"], text=content_text(message.get("content")),
                                       tool_calls=calls, tool_call_id=call_id,
                                       tool_name=name if message["role"] == "tool" else None))
    return found


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def render(messages: list[TranscriptMessage]) -> str:
    """The transcript as text, one block per message: ``[role] text`` then one line per tool call."""
    return "\n".join(_render(m) for m in messages)


def _render(message: TranscriptMessage) -> str:
    role = f"tool {message.tool_name}" if message.role == "tool" and message.tool_name else message.role
    role = f"{message.agent}: {role}" if message.agent else role
    lines = [f"[{role}] {message.text}".rstrip()]
    lines += [f"  -> tool call {call.name}({call.arguments})" for call in message.tool_calls]
    return "\n".join(lines)


def save(path: Path, messages: list[TranscriptMessage]) -> None:
    path.write_bytes(MESSAGES.dump_json(messages, indent=1, exclude_defaults=True))


def load(path: Path) -> list[TranscriptMessage]:
    """The saved transcript of a cycle; a clear error naming the file when it is not one."""
    try:
        return MESSAGES.validate_json(path.read_bytes())
    except ValueError as exc:
        raise ValueError(f"{path}: expected a list of transcript messages (role, text, tool_calls): {exc}") from exc
