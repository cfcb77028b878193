"""Recording: each real reply is appended to a cassette as a trigger step (turn + latest message),
so a live run replays offline as `scripted/<name>`. Format: tasks_catalog/cassettes/README.md."""

from __future__ import annotations

import threading
from pathlib import Path

from clawmark.fsio import atomic_write_text
from typing import Any

import yaml

from clawmark.gateway.cassettes import latest_prompt_text

MATCH_TAIL_CHARS = 300


class CassetteRecorder:
    """Appends steps to one cassette file; thread-safe, the file is replaced atomically."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self._lock = threading.Lock()

    def record(self, messages: list[dict], message: dict, usage: dict | None) -> None:
        step = _step(messages, message, usage or {})
        with self._lock:
            data = yaml.safe_load(self.path.read_text(encoding="utf-8")) if self.path.exists() else None
            data = data or {"description": "recorded by the clawmark gateway", "steps": []}
            data["steps"].append(step)
            atomic_write_text(self.path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def _step(messages: list[dict], message: dict, usage: dict) -> dict[str, Any]:
    latest = latest_prompt_text(messages)
    step: dict[str, Any] = {
        "match": latest[-MATCH_TAIL_CHARS:],
        "turn": sum(1 for m in messages if m.get("role") == "assistant"),
        "content": message.get("content"),
    }
    calls = [{"id": c.get("id"), "name": c["function"]["name"], "arguments": c["function"].get("arguments") or "{}"}
             for c in message.get("tool_calls") or []]
    if calls:
        step["tool_calls"] = calls
    if usage:
        step["usage"] = {"prompt": usage.get("prompt_tokens", 0), "completion": usage.get("completion_tokens", 0),
                         "cached": (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0,
                         "reasoning": (usage.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0}
    return step


def assemble_message(chunks: list[dict]) -> dict:
    """The assistant message a list of OpenAI stream chunks spells out."""
    content: list[str] = []
    calls: dict[int, dict] = {}
    for chunk in chunks:
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            content.append(delta.get("content") or "")
            for part in delta.get("tool_calls") or []:
                call = calls.setdefault(part.get("index", 0), {"id": None, "function": {"name": "", "arguments": ""}})
                call["id"] = part.get("id") or call["id"]
                function = part.get("function") or {}
                call["function"]["name"] += function.get("name") or ""
                call["function"]["arguments"] += function.get("arguments") or ""
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content) or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message
