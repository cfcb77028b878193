"""Leak audit of the follow-up channel: does a message to the executor carry hidden material?

Flags (each `kind: evidence`), none of which counts when the same thing is in the public task
(or in the visible text the caller passes):
- `rubric_ngram` / `reference_ngram`: a run of WORD_N words (Latin text, case-folded) or CHAR_N
  CJK characters shared with eval_rule.md or another reference file;
- `reference_name`: the file name of a hidden reference (e.g. `answer_key.json`);
- `check_name`: a check id of checks.yaml or a checkpoint id of the rubric (`CP2`, `total_json`);
- `score_number`: a decimal in 0..1 (`0.65`) or a percentage (`65%`);
- `judge_word`: score, rubric, checkpoint, supervisor, grader... (and 评分, 分数, 检查点...).
The flags are evidence for a reader and for the row, not a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from clawmark.catalog.task import ClosedLoopTask
from clawmark.judge.prompting import hidden_files, read_text_or_none
from clawmark.language import is_cjk

WORD_N = 6
CHAR_N = 10
MAX_FLAGS_PER_KIND = 5
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SCORE = re.compile(r"(?<![\d.])(?:0?\.\d{1,3}|1\.0{1,3})(?![\d.])|\b\d{1,3}(?:\.\d+)?\s?%")
JUDGE_WORDS = ("score", "scored", "scoring", "rubric", "checkpoint", "supervisor", "grader", "grading",
               "evaluator", "eval_rule", "hidden reference", "评分", "分数", "得分", "评分标准", "检查点", "评审", "监督")


class Leak(NamedTuple):
    """One flag: its kind, the evidence a reader sees, and where in the message it sits."""

    kind: str
    evidence: str
    spans: tuple[tuple[int, int], ...]

    def flag(self) -> str:
        return f"{self.kind}: {self.evidence!r}"


def audit_followup(text: str, task: ClosedLoopTask, *, visible: str = "") -> list[str]:
    """Leak flags of one follow-up message (empty: nothing hidden found). `visible` (e.g. the
    executor's transcript) counts as public too: repeating the executor's own words leaks nothing."""
    return [leak.flag() for leak in find_leaks(text, task, visible=visible)]


def find_leaks(text: str, task: ClosedLoopTask, *, visible: str = "") -> list[Leak]:
    """audit_followup's flags with the character spans of `text` each one covers (for redaction)."""
    public = public_text(task) + "\n" + visible
    leaks: list[Leak] = []
    for label, hidden in hidden_texts(task):
        leaks += [Leak(label, gram, spans) for gram, spans in _shared_runs(text, hidden, public)[:MAX_FLAGS_PER_KIND]]
    leaks += [Leak("reference_name", n, s) for n, s in _mentioned(text, public, reference_names(task))]
    leaks += [Leak("check_name", n, s) for n, s in _mentioned(text, public, check_names(task), case=True)]
    numbers: dict[str, list[tuple[int, int]]] = {}
    for match in _SCORE.finditer(text):
        if match.group(0) not in public:
            numbers.setdefault(match.group(0), []).append(match.span())
    leaks += [Leak("score_number", n, tuple(s)) for n, s in numbers.items()]
    leaks += [Leak("judge_word", w, s) for w, s in _mentioned(text, public, JUDGE_WORDS)]
    return leaks


def public_text(task: ClosedLoopTask) -> str:
    return "\n".join(t for t in (task.spec.task, task.spec.task_snapshot or "") if t)


def hidden_texts(task: ClosedLoopTask) -> list[tuple[str, str]]:
    texts = [("rubric_ngram", task.rubric.raw_text or task.eval_rule_file.read_text(encoding="utf-8"))]
    for path in hidden_files(task):
        if path != task.eval_rule_file and (content := read_text_or_none(path)):
            texts.append(("reference_ngram", content))
    return texts


def shared_ngrams(text: str, hidden: str, public: str) -> list[str]:
    """Maximal runs of `text` made of n-grams found in `hidden` and not in `public`."""
    return [run for run, _spans in _shared_runs(text, hidden, public)]


def _shared_runs(text: str, hidden: str, public: str) -> list[tuple[str, tuple[tuple[int, int], ...]]]:
    """shared_ngrams' runs, each with the character spans in `text` where it occurs."""
    runs: dict[str, list[tuple[int, int]]] = {}
    for tokenise, n, joiner in ((_words, WORD_N, " "), (_cjk_chars, CHAR_N, "")):
        secret = _grams(_texts(tokenise(hidden)), n, joiner) - _grams(_texts(tokenise(public)), n, joiner)
        tokens = tokenise(text)
        words = _texts(tokens)
        hits = [i for i in range(len(words) - n + 1) if joiner.join(words[i:i + n]) in secret]
        for start, end in _spans(hits):
            run = joiner.join(words[start:end + n])
            runs.setdefault(run, []).append((tokens[start][1], tokens[end + n - 1][2]))
    return [(run, tuple(spans)) for run, spans in runs.items()]


def _words(text: str) -> list[tuple[str, int, int]]:
    """Latin-script words, case-folded, with their spans."""
    return [(m.group(0).casefold(), m.start(), m.end()) for m in _WORD.finditer(text)
            if not any(is_cjk(c) for c in m.group(0))]


def _cjk_chars(text: str) -> list[tuple[str, int, int]]:
    return [(c, i, i + 1) for i, c in enumerate(text) if is_cjk(c)]


def _texts(tokens: list[tuple[str, int, int]]) -> list[str]:
    return [token for token, _start, _end in tokens]


def _grams(tokens: list[str], n: int, joiner: str) -> set[str]:
    return {joiner.join(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}


def _spans(hits: list[int]) -> list[tuple[int, int]]:
    """Consecutive start positions merged: [3, 4, 5, 9] -> [(3, 5), (9, 9)]."""
    spans: list[tuple[int, int]] = []
    for i in hits:
        if spans and i == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], i)
        else:
            spans.append((i, i))
    return spans


def reference_names(task: ClosedLoopTask) -> list[str]:
    return sorted({p.name for p in hidden_files(task)} | {"eval_rule.md", "checks.yaml"})


def check_names(task: ClosedLoopTask) -> list[str]:
    ids = [c.id for c in task.checks.checks] if task.checks else []
    return ids + [c.id for c in task.rubric.checkpoints]


def _mentioned(text: str, public: str, names: Iterable[str],
               case: bool = False) -> list[tuple[str, tuple[tuple[int, int], ...]]]:
    """The names in `text` and not in `public`, each with its spans in `text`."""
    def spans(name: str, where: str) -> tuple[tuple[int, int], ...]:
        if any(is_cjk(c) for c in name):  # CJK has no word boundaries
            return tuple((m.start(), m.end()) for m in re.finditer(re.escape(name), where))
        flags = 0 if case else re.IGNORECASE
        return tuple(m.span() for m in re.finditer(rf"(?<![\w.]){re.escape(name)}(?![\w])", where, flags))

    return [(n, found) for n in _unique(names) if n and (found := spans(n, text)) and not spans(n, public)]


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))
