"""One transcript for every claw: each claw's session backup (what its ``backup_session`` wrote
into a cycle's ``transcript/`` folder) normalised to :class:`clawmark.results.transcript.TranscriptMessage`.

A normaliser is picked by the name of what the claw left (its own file or folder names), so a
folder alone is enough: the live attempt, ``clawmark rejudge`` and ``clawmark show`` read it
the same way. What no normaliser claims is read as messages when it holds any, else as text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from clawmark.claws.transcripts import genericagent, openai_shaped, openclaw
from clawmark.results.transcript import TranscriptMessage

Reader = Callable[[Path], list[TranscriptMessage]]

READERS: dict[str, Reader] = {
    "reference-messages.json": openai_shaped.messages_file,
    "mini-traj.json": openai_shaped.messages_file,
    "nanobot-sessions": openai_shaped.nanobot_sessions,
    "session-export.jsonl": openai_shaped.hermes_export,
    "hermes-messages.json": lambda _path: [],  # the adapter's copy of session-export.jsonl's messages
    "edict-kanban.json": lambda _path: [],  # EDICT's board: its roles' tool calls and results show every change
    "genericagent-session": genericagent.read_session,
    "sessions": openai_shaped.zeroclaw_sessions,
}


def read_transcript(backup_dir: Path) -> list[TranscriptMessage]:
    """The executor's messages and tool calls from a session backup folder ([] when none)."""
    if not backup_dir.is_dir():
        return []
    entries = sorted(p for p in backup_dir.iterdir() if not p.is_symlink() and not p.name.startswith("."))
    bundles = [p for p in entries if p.is_dir() and p.name.startswith(openclaw.BUNDLE_PREFIX)]
    session_folders = [p for p in entries if p.is_dir() and p.name.startswith(openclaw.SESSIONS_PREFIX)]
    messages = openclaw.read_bundles(bundles) + openclaw.read_session_folders(session_folders)
    for entry in entries:
        if entry in bundles or entry in session_folders or entry.name.endswith(".error.log"):  # a failed export: clawmark's note, not the claw's
            continue
        messages += READERS.get(entry.name, openai_shaped.unknown_entry)(entry)
    return messages
