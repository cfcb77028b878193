"""Hidden material of a task and where in a cell's folder the executor's and the simulator's
own output lives (the supervisor's files are left out: they hold the rubric by design).

Hidden text counts as leaked where a run of it (leak_audit's n-grams) shows up that is neither
public (the task text, the executor's own inputs and their names, the issue) nor the claw's own
work (its deliverables, its patch): a rubric states the right answer and a correct deliverable
holds it too, an identical fix matches the gold patch, and a simulator repeating the executor's
own words leaks nothing (as leak_audit rules for follow-ups). The test patch is never excused.
(A gold patch or answer the claw copied is therefore indistinguishable from one it produced;
keeping hidden material out of the container closes that path before the claw starts.)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from clawmark.fsio import decode_text
from clawmark.judge.leak_audit import shared_ngrams
from clawmark.judge.prompting import hidden_files, read_text_or_none

# Relative to a cell folder: what the claw, its container and the user simulator produced.
PRODUCED = ("transcript", "artifacts", "logs", "patch.diff", "patch.raw.diff", "cycles/*/prompt.txt",
            "cycles/*/turn.json", "cycles/*/transcript", "cycles/*/results", "cycles/*/simulator.json",
            "cycles/*/feedback.txt")
NOT_PRODUCED = ("logs/pre_exec",)  # the task's host-side scripts: harness side
OWN_WORK = ("artifacts", "cycles/*/results", "patch.diff")
MAX_TEXT_BYTES = 8 * 2**20
MAX_EVIDENCE_CHARS = 80
# A claw testing its own fix writes config lines and asserts much like the hidden tests; only a
# run this long (7+ consecutive shared 6-grams) is taken as copied, not coincident.
PATCH_RUN_WORDS = 12


@dataclass
class HiddenMaterial:
    """(kind, text) pairs never excused, pairs excused by own work, and the public text."""

    strict: list[tuple[str, str]] = field(default_factory=list)
    excusable: list[tuple[str, str]] = field(default_factory=list)
    public: str = ""
    min_run_words: int = 0  # shorter shared runs are coincidence (code shares short token runs)


def closed_loop_material(task) -> HiddenMaterial:
    from clawmark.judge.leak_audit import public_text

    rubric = task.rubric.raw_text or task.eval_rule_file.read_text(encoding="utf-8")
    references = [(f"reference {p.name}", text) for p in hidden_files(task)
                  if p != task.eval_rule_file and (text := read_text_or_none(p))]
    sources = [read_text_or_none(p) or "" for p in sorted(task.sources_dir.rglob("*")) if p.is_file()] \
        if task.sources_dir and task.sources_dir.is_dir() else []  # the executor's own inputs (a rubric may quote them)
    paths = sorted(task.sources_dir.rglob("*")) if task.sources_dir and task.sources_dir.is_dir() else []
    names = [p.relative_to(task.sources_dir).as_posix() for p in paths] + sorted(p.name for p in paths)  # ls output
    return HiddenMaterial(excusable=[("rubric", rubric), *references],
                          public="\n".join([public_text(task), *sources, *names]))


def patch_material(instance) -> HiddenMaterial:
    known = "\n".join(_base_lines(p) for p in (instance.patch, instance.test_patch))  # in the repo already
    return HiddenMaterial(strict=[("test patch", _added_lines(instance.test_patch))],
                          excusable=[("gold patch", _added_lines(instance.patch))],
                          public=instance.problem_statement + "\n" + known, min_run_words=PATCH_RUN_WORDS)


def produced_files(names: Iterable[str]) -> list[str]:
    """Of a cell's file names (relative, `/`-separated), those the claw, its container and the
    user simulator produced."""
    return sorted(n for n in names if _under(n, PRODUCED) and not _under(n, NOT_PRODUCED))


def own_work_files(names: Iterable[str]) -> list[str]:
    return sorted(n for n in names if _under(n, OWN_WORK))


def _under(name: str, patterns: tuple[str, ...]) -> bool:
    """`name` matches a pattern, or lies in a folder that does (as glob, then rglob, would find)."""
    parts = name.split("/")
    return any(len(parts) >= len(shape) and all(map(fnmatchcase, parts, shape))
               for shape in (p.split("/") for p in patterns))


def hidden_in(text: str, material: HiddenMaterial, own_work: str) -> list[tuple[str, str]]:
    """(kind, evidence) for each run of hidden text found in `text`."""
    found = []
    for kind, hidden in material.strict:
        found += [(kind, run) for run in shared_ngrams(text, hidden, material.public)]
    excused = material.public + "\n" + own_work
    for kind, hidden in material.excusable:
        found += [(kind, run) for run in shared_ngrams(text, hidden, excused)]
    return [(kind, _short(run)) for kind, run in found if len(run.split()) >= material.min_run_words]


def readable_text(name: str, data: bytes) -> str | None:
    """A file's text (None if binary); JSON files as their string values, one per line (escapes undone)."""
    text = decode_text(data)
    if text is None or not name.endswith((".json", ".jsonl")):
        return text
    try:
        documents = [json.loads(line) for line in text.splitlines() if line.strip()] if name.endswith(".jsonl") \
            else [json.loads(text)]
    except ValueError:
        return text
    return "\n".join(s for doc in documents for s in _strings(doc))


def _strings(data) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for value in data.values() for s in _strings(value)]
    if isinstance(data, list):
        return [s for item in data for s in _strings(item)]
    return [str(data)] if data is not None else []


def _added_lines(patch: str) -> str:
    return "\n".join(line[1:] for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++"))


def _base_lines(patch: str) -> str:
    return "\n".join(line[1:] for line in patch.splitlines()
                     if line[:1] in (" ", "-") and not line.startswith("---"))


def _short(run: str) -> str:
    return run if len(run) <= MAX_EVIDENCE_CHARS else run[:MAX_EVIDENCE_CHARS - 1] + "…"
