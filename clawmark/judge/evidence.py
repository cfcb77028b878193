"""What the executor visibly produced in one turn: its transcript and its results folder.

Built from the claw's transcript (the one message and tool-call sequence every claw's session is
normalised to, :mod:`clawmark.results.transcript`) and a host copy of
/tmp_workspace/results. Everything is bounded: a long transcript keeps a head and a tail view
with the cut marked; text files are inlined up to a per-file and a total budget; images are
sent as images (OpenAI `image_url` parts with data URLs), other files are listed only.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from clawmark.judge.fence import GUTTER, Fence
from clawmark.results.transcript import TranscriptMessage, from_openai, render

IMAGE_SUFFIXES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
                  ".webp": "image/webp"}
CUT_MARK = "\n[... clawmark: {n} characters of the transcript cut here ...]\n"
FILE_CUT_MARK = "\n[... clawmark: file cut at {n} characters ...]"


class EvidenceLimits(BaseModel):
    """Bounds of one evidence bundle (what a judge prompt can carry)."""

    transcript_head_chars: int = Field(12_000, ge=0)
    transcript_tail_chars: int = Field(28_000, ge=0)
    file_chars: int = Field(20_000, gt=0, description="Text shown per file.")
    total_file_chars: int = Field(80_000, gt=0, description="Text shown over all files.")
    max_files: int = Field(200, gt=0, description="Files listed; the rest are counted.")
    max_images: int = Field(4, ge=0)
    image_bytes: int = Field(4 * 2**20, gt=0, description="Larger images are listed, not sent.")


class EvidenceFile(BaseModel):
    path: str = Field(description="Relative to the results folder.")
    size: int
    kind: Literal["text", "image", "binary"]
    text: str | None = Field(None, description="Contents (text files, within budget).")
    truncated: bool = False


class EvidenceImage(BaseModel):
    path: str
    data_url: str
    label: str | None = Field(None, description="Shown instead of the results path (a desktop screenshot).")


class Evidence(BaseModel):
    transcript: str
    transcript_chars: int = Field(description="Length before the cut.")
    transcript_cut: bool
    files: list[EvidenceFile]
    files_not_listed: int = 0
    images: list[EvidenceImage]
    notes: list[str] = Field(default_factory=list, description="Sections the harness adds (e.g. blocked web "
                             "requests), each starting with its own '## ' title.")

    @classmethod
    def from_attempt(cls, transcript_messages: list[TranscriptMessage] | list[dict], results_dir: Path | None,
                     limits: EvidenceLimits | None = None) -> "Evidence":
        limits = limits or EvidenceLimits()
        full = render_transcript(transcript_messages)
        shown, cut = head_tail(full, limits.transcript_head_chars, limits.transcript_tail_chars)
        paths = _result_files(results_dir)
        files = _describe_files(results_dir, paths[: limits.max_files], limits) if results_dir else []
        images = _images(results_dir, files, limits) if results_dir else []
        return cls(transcript=shown, transcript_chars=len(full), transcript_cut=cut, files=files,
                   files_not_listed=max(0, len(paths) - limits.max_files), images=images)

    def add_screenshots(self, paths: list[Path]) -> None:
        """Desktop screenshots of a headed task (not results files), shown after the results' images."""
        for path in paths:
            self.images.append(EvidenceImage(path=path.name, data_url=data_url(path),
                                             label=f"Screenshot of the executor's desktop ({path.name}):"))

    def render_text(self, fence: Fence) -> str:
        """The transcript, the results folder and the harness notes as one text block for a judge
        prompt: clawmark's headings outside, everything the claw produced inside `fence`."""
        listing = "\n".join(f"- {f.path} ({f.size} bytes, {f.kind})" for f in self.files) or "(empty)"
        if self.files_not_listed:
            listing += f"\n- ... and {self.files_not_listed} more files"
        texts = [f for f in self.files if f.text is not None]
        bodies = "\n\n".join(f"### Text file {i} of {len(texts)}\n" + fence.wrap(f"text file {i}",
                                                                                  f"path: {f.path}\n{f.text}")
                                for i, f in enumerate(texts, start=1))
        cut = f" (cut: {self.transcript_chars} characters in all)" if self.transcript_cut else ""
        return (f"## Executor transcript{cut}\n{fence.wrap('executor transcript', self.transcript or '(empty)')}\n\n"
                f"## Files in /tmp_workspace/results/\n{fence.wrap('results listing', listing)}\n\n"
                f"## Text file contents\n{bodies or '(none)'}"
                + "".join(f"\n\n{fenced_note(note, fence)}" for note in self.notes))

    def raw_text(self) -> str:
        """What the executor visibly wrote, unfenced: the public side of the follow-up leak audit."""
        return "\n\n".join([self.transcript, *(f"{f.path}\n{f.text}" for f in self.files if f.text is not None),
                             *self.notes])

    def image_parts(self, fence: Fence) -> list[dict[str, Any]]:
        """The images as OpenAI parts between the fence's lines (their names are the claw's)."""
        if not self.images:
            return []
        parts = [text_part(f"\n\n## Images the executor saved\n{fence.open('images')}\n")]
        for image in self.images:
            label = image.label or f"Image, file {fence.inline(image.path)} in /tmp_workspace/results/:"
            parts.append(text_part(GUTTER + label))  # inside the fence, like every claw line
            parts.append({"type": "image_url", "image_url": {"url": image.data_url}})
        return [*parts, text_part(f"\n{fence.close('images')}")]


def text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def fenced_note(note: str, fence: Fence) -> str:
    """A harness note: its '## ' title is clawmark's, its body (URLs, bodies the claw sent) is not."""
    title, _, body = note.partition("\n")
    return f"{title}\n{fence.wrap('requests the executor made', body)}" if body else title


def render_transcript(messages: list[TranscriptMessage] | list[dict]) -> str:
    """The transcript as the judge reads it; OpenAI-shaped dicts (a live chat) are normalised first."""
    if any(isinstance(m, dict) for m in messages):
        return render(from_openai(list(messages)))
    return render(messages)  # type: ignore[arg-type]


def message_text(content: object) -> str:
    """Text of a message content; image parts become a placeholder."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if p.get("type") == "text" else "[image]"
                       for p in content if isinstance(p, dict))
    return "" if content is None else json.dumps(content, default=str)


def head_tail(text: str, head: int, tail: int) -> tuple[str, bool]:
    """`text` when it fits, else its head and tail with the cut marked."""
    if len(text) <= head + tail:
        return text, False
    dropped = len(text) - head - tail
    return text[:head] + CUT_MARK.format(n=dropped) + (text[-tail:] if tail else ""), True


def _result_files(results_dir: Path | None) -> list[Path]:
    """Regular files under the folder; symlinks are neither followed nor listed (they could
    point at host files)."""
    if results_dir is None or not results_dir.is_dir():
        return []
    found = [Path(top) / name for top, _dirs, names in os.walk(results_dir) for name in names]
    return sorted(p for p in found if p.is_file() and not p.is_symlink())


def _describe_files(root: Path, paths: list[Path], limits: EvidenceLimits) -> list[EvidenceFile]:
    budget, described = limits.total_file_chars, []
    for path in paths:
        kind = _kind(path)
        entry = EvidenceFile(path=path.relative_to(root).as_posix(), size=path.stat().st_size, kind=kind)
        if kind == "text" and budget > 0:
            limit = min(limits.file_chars, budget)
            text = _head(path, limit)
            entry.truncated = len(text) > limit
            entry.text = text[:limit] + (FILE_CUT_MARK.format(n=limit) if entry.truncated else "")
            budget -= min(len(text), limit)
        described.append(entry)
    return described


def _head(path: Path, chars: int) -> str:
    """At most chars + 1 characters from the start (enough to tell a cut), never the whole file."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        return handle.read(chars + 1)


def _kind(path: Path) -> Literal["text", "image", "binary"]:
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return "image"
    with path.open("rb") as handle:
        sample = handle.read(8192)
    if b"\0" in sample:
        return "binary"
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        return "text" if exc.start > len(sample) - 4 else "binary"  # a character cut by the sample
    return "text"


def _images(root: Path, files: list[EvidenceFile], limits: EvidenceLimits) -> list[EvidenceImage]:
    picked = [f for f in files if f.kind == "image" and f.size <= limits.image_bytes][: limits.max_images]
    return [EvidenceImage(path=f.path, data_url=data_url(root / f.path)) for f in picked]


def data_url(path: Path) -> str:
    mime = IMAGE_SUFFIXES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode()}"
