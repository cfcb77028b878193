"""The executor's visible trajectory for the supervisor, the simulator, ``clawmark show`` and
the report: the cycle's session backup normalised to one message and tool-call sequence
(:mod:`clawmark.claws.transcripts`), saved beside it as ``transcript.json``. System prompts are
not evidence."""

from __future__ import annotations

import json
from pathlib import Path

from clawmark.claws.transcripts import read_transcript
from clawmark.results.transcript import TranscriptMessage, save

TRANSCRIPT_FILE = "transcript.json"


def visible_messages(cycle_folder: Path) -> list[TranscriptMessage]:
    """The messages of the cycle's session backup (``transcript/``), also saved as its
    ``transcript.json``."""
    messages = read_transcript(cycle_folder / "transcript")
    save(cycle_folder / TRANSCRIPT_FILE, messages)
    return messages


def write_json(path: Path, payload: object) -> None:
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
