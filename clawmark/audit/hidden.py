"""Hidden material of a task, and what counts as its leak.

A leak is hidden material (rubric lines, reference files, gold data) in what the executor or the
user simulator could see or wrote, beyond what the task already makes public. Hidden text counts
where a run of it (leak_audit's n-grams) shows up that is none of:
- public: the task text, its id and category, the executor's inputs (sources, skills) and their
  file names, the issue of a patch task;
- the executor's own work: its deliverables, its patch, and what it wrote in its transcript (a
  rubric states the right answer, and a correct run derives and states it too; an identical fix
  matches the gold patch). Which of a cell's files are seen, which written, and which earlier
  work excuses a follow-up is clawmark/audit/produced.py.
The test patch is never excused. (A gold answer the claw copied is therefore indistinguishable
from one it produced; keeping hidden material out of the container closes that path before the
claw starts, and the channel hidden text would come in by, the follow-ups, is excused only by
work done before it.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from clawmark.judge.leak_audit import public_text, shared_ngrams
from clawmark.judge.prompting import hidden_files, read_text_or_none

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
    rubric = task.rubric.raw_text or task.eval_rule_file.read_text(encoding="utf-8")
    references = [(f"reference {p.name}", text) for p in hidden_files(task)
                  if p != task.eval_rule_file and (text := read_text_or_none(p))]
    inputs = _files(task.sources_dir) + [p for folder in task.skill_dirs.values() for p in _files(folder)]
    texts = [read_text_or_none(p) or "" for p in inputs]  # the executor's own inputs (a rubric may quote them)
    names = [p.relative_to(task.sources_dir).as_posix() for p in _files(task.sources_dir)] + sorted(p.name for p in inputs)
    # An upstream rubric and ground truth name their task, its category and skills, labelled or not.
    identity = [f"task_id: {task.task_id}", f"category: {task.spec.category}", *task.skill_dirs]
    return HiddenMaterial(excusable=[("rubric", rubric), *references],
                          public="\n".join([public_text(task), *identity, *texts, *names]))


def _files(folder) -> list:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder and folder.is_dir() else []


def with_references(material: HiddenMaterial, references: list[tuple[str, str]]) -> HiddenMaterial:
    """The material plus an attempt's own references (those a pre_exec regenerated), each text
    not already in it."""
    known = {text for _, text in material.excusable}
    extra = [(f"attempt reference {name}", text) for name, text in references if text not in known]
    if not extra:
        return material
    return HiddenMaterial(material.strict, [*material.excusable, *extra], material.public, material.min_run_words)


def patch_material(instance) -> HiddenMaterial:
    known = "\n".join(_base_lines(p) for p in (instance.patch, instance.test_patch))  # in the repo already
    return HiddenMaterial(strict=[("test patch", _added_lines(instance.test_patch))],
                          excusable=[("gold patch", _added_lines(instance.patch))],
                          public=instance.problem_statement + "\n" + known, min_run_words=PATCH_RUN_WORDS)


def hidden_in(text: str, material: HiddenMaterial, own_work: str, *, written: bool = False) -> list[tuple[str, str]]:
    """(kind, evidence) for each run of hidden text found in `text`: the strict material
    anywhere, the excusable only in what was seen (`written`: text the executor wrote, which is
    own work itself)."""
    found = []
    for kind, hidden in material.strict:
        found += [(kind, run) for run in shared_ngrams(text, hidden, material.public)]
    excused = material.public + "\n" + own_work
    for kind, hidden in ([] if written else material.excusable):
        found += [(kind, run) for run in shared_ngrams(text, hidden, excused)]
    return [(kind, _short(run)) for kind, run in found if len(run.split()) >= material.min_run_words]


def _added_lines(patch: str) -> str:
    return "\n".join(line[1:] for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++"))


def _base_lines(patch: str) -> str:
    return "\n".join(line[1:] for line in patch.splitlines()
                     if line[:1] in (" ", "-") and not line.startswith("---"))


def _short(run: str) -> str:
    return run if len(run) <= MAX_EVIDENCE_CHARS else run[:MAX_EVIDENCE_CHARS - 1] + "…"
