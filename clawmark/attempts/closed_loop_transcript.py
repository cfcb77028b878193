"""The executor's visible trajectory, as OpenAI-shaped messages, for the supervisor and simulator.

The claw protocol has no "give me your messages" hook, so this reads what every claw leaves:
the reference claw's live conversation, else the JSON / JSONL session files its
``backup_session`` wrote (lists of messages, ``{"messages": [...]}``, one message per line),
else the backed-up text files as assistant text. System prompts are not evidence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MAX_FALLBACK_CHARS = 200_000


def visible_messages(claw: Any, backup_dir: Path) -> list[dict]:
    live = getattr(claw, "messages", None)
    if isinstance(live, list) and live:
        return [m for m in live if isinstance(m, dict) and m.get("role") != "system"]
    found: list[dict] = []
    files = sorted(p for p in backup_dir.rglob("*") if _is_session_file(p)) if backup_dir.is_dir() else []
    for path in files:
        found += _messages_in(path)
    return [m for m in found if m.get("role") != "system"]


def _is_session_file(path: Path) -> bool:
    """Lock files and dotfiles a claw keeps beside its sessions are not part of the trajectory."""
    return path.is_file() and not path.name.startswith(".") and path.stat().st_size > 0


def _messages_in(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".jsonl":
        return [m for m in (_loads(line) for line in text.splitlines()) if _is_message(m)]
    value = _loads(text)
    if isinstance(value, dict):
        value = value.get("messages", value)
    if isinstance(value, list) and any(_is_message(m) for m in value):
        return [m for m in value if _is_message(m)]
    return [{"role": "assistant", "content": f"[{path.name}]\n{text[:MAX_FALLBACK_CHARS]}"}]


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("role"), str)


def write_json(path: Path, payload: Any) -> None:
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
