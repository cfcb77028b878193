"""Which of a cell's files the executor and the user simulator produced, and in them what the
executor saw and what it wrote.

- Written (the executor's own work): its deliverables (`artifacts/`, `cycles/*/results/`), its
  patch, its turn results, and in a JSON transcript every message of role `assistant` (its text
  and its tool calls' arguments).
- Seen: everything else produced — tool results and prompts in transcripts, logs of its
  container and services, and the follow-up channel (`cycles/*/prompt.txt`, `feedback.txt`,
  `simulator.json`: what the simulator wrote and the executor was sent).

Seen text is excused by the executor's own work, the follow-up channel of cycle n only by work
done up to turn n: a follow-up cannot be excused by a deliverable that copied it afterwards.
The supervisor's files (decision.json, checks.json), the agentic judges' runs (cycles/*/agent/: the
simulator's answer is scanned in simulator.json) and the harness side (config, ledger, the
package copy under package/, pre_exec logs) hold the rubric by design and are not scanned; the
references kept under package/ are that attempt's hidden material (scan.py adds them).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from clawmark.fsio import decode_text

PRODUCED = ("transcript", "artifacts", "logs", "patch.diff", "patch.raw.diff", "cycles/*/prompt.txt",
            "cycles/*/turn.json", "cycles/*/transcript", "cycles/*/results", "cycles/*/simulator.json",
            "cycles/*/feedback.txt")
NOT_PRODUCED = ("logs/pre_exec",)  # the task's host-side scripts: harness side
WRITTEN = ("artifacts", "cycles/*/results", "patch.diff", "patch.raw.diff", "cycles/*/turn.json")
FOLLOW_UP_CHANNEL = ("cycles/*/prompt.txt", "cycles/*/feedback.txt", "cycles/*/simulator.json")
TRANSCRIPTS = ("transcript", "cycles/*/transcript")
WRITER_ROLES = frozenset({"assistant", "model"})
ATTEMPT_PACKAGE = "package"  # clawmark/attempts/closed_loop_stages.py PACKAGE_DIR


@dataclass(frozen=True)
class ProducedText:
    """One produced file's text, split into what the executor wrote and what it saw."""

    name: str
    written: str
    seen: str

    @property
    def cycle(self) -> int | None:
        """The turn a `cycles/<n>/...` file belongs to (None for the attempt's final copies)."""
        parts = self.name.split("/")
        return int(parts[1]) if parts[0] == "cycles" and len(parts) > 1 and parts[1].isdigit() else None

    @property
    def follow_up(self) -> bool:
        return under(self.name, FOLLOW_UP_CHANNEL)


def produced_files(names: Iterable[str]) -> list[str]:
    """Of a cell's file names (relative, `/`-separated), those the claw, its container and the
    user simulator produced."""
    return sorted(n for n in names if under(n, PRODUCED) and not under(n, NOT_PRODUCED))


def attempt_reference_files(names: Iterable[str]) -> list[str]:
    """The hidden references an attempt's copy of its package kept (`package/<...>/references/`):
    what a pre_exec regenerated is that attempt's hidden material too."""
    return sorted(n for n in names if n.startswith(f"{ATTEMPT_PACKAGE}/") and "/references/" in n)


def split_text(name: str, data: bytes) -> ProducedText | None:
    """The file's text split into written and seen (None if binary)."""
    text = decode_text(data)
    if text is None:
        return None
    if under(name, WRITTEN):
        return ProducedText(name, text, "")
    documents = _json_documents(name, text)
    if documents is None:
        return ProducedText(name, "", text)
    written: list[str] = []
    seen: list[str] = []
    for document in documents:
        _collect(document, under(name, TRANSCRIPTS), written, seen)
    return ProducedText(name, "\n".join(written), "\n".join(seen))


def own_work(texts: list[ProducedText], up_to_cycle: int | None = None) -> str:
    """What the executor wrote: everything, or only its files of cycles up to `up_to_cycle`."""
    return "\n".join(t.written for t in texts
                     if t.written and (up_to_cycle is None or (t.cycle is not None and t.cycle <= up_to_cycle)))


def under(name: str, patterns: tuple[str, ...]) -> bool:
    """`name` matches a pattern, or lies in a folder that does (as glob, then rglob, would find)."""
    parts = name.split("/")
    return any(len(parts) >= len(shape) and all(map(fnmatchcase, parts, shape))
               for shape in (p.split("/") for p in patterns))


def _json_documents(name: str, text: str) -> list | None:
    if not name.endswith((".json", ".jsonl")):
        return None
    try:
        if name.endswith(".jsonl"):
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        return [json.loads(text)]
    except ValueError:
        return None


def _collect(data, roles: bool, written: list[str], seen: list[str]) -> None:
    """Strings of `data` (JSON-in-strings such as tool-call arguments unpacked) into `seen`, or
    into `written` inside a message whose role is the assistant's (`roles`: a transcript)."""
    if roles and isinstance(data, dict) and data.get("role") in WRITER_ROLES:
        _collect(data, False, written, written)
    elif isinstance(data, dict):
        for value in data.values():
            _collect(value, roles, written, seen)
    elif isinstance(data, list):
        for item in data:
            _collect(item, roles, written, seen)
    elif isinstance(data, str):
        unpacked = _json_in(data)
        if unpacked is None:
            seen.append(data)
        else:
            _collect(unpacked, roles, written, seen)
    elif data is not None:
        seen.append(str(data))


def _json_in(value: str):
    """A JSON object or array carried as a string (a tool call's arguments), else None."""
    if not value.startswith(("{", "[")):
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None
