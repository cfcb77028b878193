"""Shared pieces of the judging prompts: hidden reference files as bounded text, and the
ask-once-repair-once loop both roles use to get a validated JSON reply."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from clawmark.catalog.task import ClosedLoopTask
from clawmark.fsio import decode_text
from clawmark.judge.chat import ChatFn

T = TypeVar("T")
REFERENCE_FILE_CHARS = 20_000
REFERENCE_TOTAL_CHARS = 60_000
MAX_TEXT_BYTES = 2**20
SKIPPED_REFERENCES = {"eval_rule.md", "checks.yaml"}


class ReplyInvalid(Exception):
    """Two replies in a row failed validation; `raw_outputs` keeps both, `reasons` says why."""

    def __init__(self, message: str, raw_outputs: list[str], reasons: list[str]):
        super().__init__(message)
        self.raw_outputs, self.reasons = raw_outputs, reasons


def ask_with_repair(chat: ChatFn, messages: list[dict], parse: Callable[[str], T],
                    repair_text: Callable[[str], str]) -> tuple[T, list[str]]:
    """`parse(chat(messages))`; on ValueError one repair request quoting the reason, then ReplyInvalid."""
    raw_outputs, reasons = [], []
    for _attempt in range(2):
        reply = chat(messages)
        raw_outputs.append(reply)
        try:
            return parse(reply), raw_outputs
        except ValueError as exc:
            reasons.append(str(exc))
            messages = [*messages, {"role": "assistant", "content": reply},
                        {"role": "user", "content": repair_text(str(exc))}]
    raise ReplyInvalid(f"two invalid replies: {' | '.join(reasons)}", raw_outputs, reasons)


def reference_texts(task: ClosedLoopTask) -> str:
    """The hidden reference files other than the rubric, as text within a budget."""
    budget, blocks = REFERENCE_TOTAL_CHARS, []
    for path in hidden_files(task):
        if path.name in SKIPPED_REFERENCES:
            continue
        name = path.relative_to(task.package_dir).as_posix()
        text = read_text_or_none(path)
        if text is None or budget <= 0:
            blocks.append(f"### {name} ({path.stat().st_size} bytes, not shown)")
            continue
        shown = text[: min(REFERENCE_FILE_CHARS, budget)]
        budget -= len(shown)
        blocks.append(f"### {name}\n{shown}" + ("\n[... cut ...]" if len(shown) < len(text) else ""))
    return "\n\n".join(blocks) or "(none besides the rubric)"


def hidden_files(task: ClosedLoopTask) -> list[Path]:
    """Every file of references/ and every declared reference (folders expanded), sorted."""
    roots = [task.package_dir / "references", *task.reference_files]
    found = {p for root in roots for p in ([root] if root.is_file() else root.rglob("*") if root.is_dir() else [])}
    return sorted(p for p in found if p.is_file())


def read_text_or_none(path: Path, max_bytes: int = MAX_TEXT_BYTES) -> str | None:
    """The file's first `max_bytes` as UTF-8 text, or None for binary files."""
    with path.open("rb") as handle:
        return decode_text(handle.read(max_bytes))
