"""Claws whose sessions are OpenAI-shaped messages already: the reference claw
(``reference-messages.json``, a list), mini-swe-agent (``mini-traj.json``, ``{"messages": [...]}``),
nanobot (``nanobot-sessions/**/<key>.jsonl``, a metadata line then one message a line), Hermes
(``session-export.jsonl``, one session a line with its ``messages``) and ZeroClaw over ACP
(``sessions/<id>.json``, ``{"messages": [...]}``: recorded from our stand-in, since the real
binary cannot be built here). Anything else a claw leaves
is read the same way when it holds messages, else shown as the claw's text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clawmark.claws.transcripts.session_files import json_lines, load_json, read_text
from clawmark.results.transcript import TranscriptMessage, from_openai

MAX_FALLBACK_CHARS = 200_000


def messages_file(path: Path) -> list[TranscriptMessage]:
    """A JSON list of messages, or an object with a ``messages`` list."""
    value = load_json(path)
    if isinstance(value, dict):
        value = value.get("messages")
    return from_openai(value) if isinstance(value, list) else []


def nanobot_sessions(folder: Path) -> list[TranscriptMessage]:
    return [m for path in _files(folder, "*.jsonl") for m in from_openai(json_lines(path))]


def zeroclaw_sessions(folder: Path) -> list[TranscriptMessage]:
    return [m for path in _files(folder, "*.json") for m in messages_file(path)]


def hermes_export(path: Path) -> list[TranscriptMessage]:
    return [m for session in json_lines(path) if isinstance(session.get("messages"), list)
            for m in from_openai(session["messages"])]


def unknown_entry(entry: Path) -> list[TranscriptMessage]:
    """A file (or folder of files) no normaliser claims: its messages when it holds any, else its
    text as the claw's (a claw without a session format of its own)."""
    found: list[TranscriptMessage] = []
    for path in _files(entry, "*") if entry.is_dir() else [entry]:
        found += _unknown_file(path)
    return found


def _unknown_file(path: Path) -> list[TranscriptMessage]:
    if path.suffix == ".jsonl":
        return from_openai(json_lines(path))
    value: Any = load_json(path) if path.suffix == ".json" else None
    if isinstance(value, (list, dict)):
        messages = messages_file(path)
        if messages:
            return messages
    text = read_text(path)
    if not text.strip() or "\0" in text:
        return []
    return [TranscriptMessage(role="assistant", text=f"[{path.name}]\n{text[:MAX_FALLBACK_CHARS]}")]


def _files(folder: Path, pattern: str) -> list[Path]:
    """Regular files under ``folder`` (no symlinks, no dotfiles such as a claw's lock files)."""
    return sorted(p for p in folder.rglob(pattern)
                  if p.is_file() and not p.is_symlink() and not p.name.startswith("."))
