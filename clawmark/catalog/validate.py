"""Validate any catalog path (task package, task tree, instance file, suite, id list, eval rule)
and collect every problem as one line instead of stopping at the first."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Callable

from pydantic import BaseModel, Field

from clawmark.catalog.content import missing_content
from clawmark.catalog.errors import CatalogError
from clawmark.catalog.eval_rule import parse_eval_rule
from clawmark.catalog.package import FOLDER_TASK_FILE, find_task_files, load_task
from clawmark.catalog.suite import INSTANCE_SUFFIXES, check_suite, index_catalog, read_suite
from clawmark.catalog.swe import load_id_list, load_instances, load_languages


class ValidationReport(BaseModel):
    counts: Counter = Field(default_factory=Counter, description="Valid items per kind.")
    problems: list[str] = Field(default_factory=list, description="One `FILE: FIELD: expected ...` line each.")
    warnings: list[str] = Field(default_factory=list, description="Suspicious but loadable, e.g. unknown keys.")
    tasks: list[str] = Field(default_factory=list, description="One line per valid closed-loop task.")
    strict: bool = Field(False, description="Missing content (LFS pointers, empty or mislabelled files) is a "
                         "problem, not a warning.")
    missing: dict[str, list[str]] = Field(default_factory=dict, description="Package paths of missing content "
                                          "per task id.")

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        parts = [f"{n} {kind}" for kind, n in sorted(self.counts.items())] or ["nothing"]
        inputs = sum(any(not p.startswith("references/") for p in paths) for paths in self.missing.values())
        missing = (f"; missing content: {sum(map(len, self.missing.values()))} file(s) in {len(self.missing)} "
                   f"task(s), {inputs} of them in the executor's inputs (fix: git lfs pull)") if self.missing else ""
        return ("valid: " if self.ok else f"{len(self.problems)} problem(s); valid: ") + ", ".join(parts) + missing


def validate_paths(paths: list[Path], strict: bool = False) -> ValidationReport:
    """`strict`: a task with missing content is a problem (exit 1), not a warning."""
    report = ValidationReport(strict=strict)
    for path in paths:
        _guard(report, path, lambda: _validate(report, path))
    return report


def _guard(report: ValidationReport, path: Path, action: Callable[[], None]) -> None:
    """Any failure becomes a problem line: a validator must never crash with a traceback."""
    try:
        action()
    except CatalogError as exc:
        report.problems.append(str(exc))
    except Exception as exc:  # noqa: BLE001 - report, never crash
        report.problems.append(str(CatalogError(path, "<internal>", f"a loadable item ({type(exc).__name__}: {exc})")))


def _validate(report: ValidationReport, path: Path) -> None:
    if not path.exists():
        raise CatalogError(path, "<path>", "an existing file or folder")
    if path.is_dir():
        _validate_folder(report, path)
    elif path.suffix in INSTANCE_SUFFIXES:
        report.counts["instances"] += len(load_instances(path))
    elif path.suffix in (".yaml", ".yml"):
        _validate_yaml(report, path)
    elif path.suffix == ".txt":
        report.counts["ids"] += len(load_id_list(path))
    elif path.suffix == ".tsv":
        report.counts["language rows"] += len(load_languages(path))
    elif path.suffix == ".md":
        report.warnings.extend(parse_eval_rule(path).warnings)
        report.counts["eval rules"] += 1
    else:
        raise CatalogError(path, "<path>", "a task, task tree, suite, instance file, id list or eval rule")


def _validate_folder(report: ValidationReport, folder: Path) -> None:
    files = find_task_files(folder)
    suites = sorted((folder / "suites").glob("*.y*ml")) if (folder / "suites").is_dir() else []
    instances = [p for p in sorted((folder / "swe").glob("*")) if p.suffix in INSTANCE_SUFFIXES]
    if not files and not suites and not instances:
        raise CatalogError(folder, "<path>", "a task package, a task tree or a catalog root")
    seen: dict[str, Path] = {}
    for file in files:
        _guard(report, file, lambda: _count_task(report, file, seen))
    for file in instances:  # a catalog root: its patch instances too
        _guard(report, file, lambda: _validate(report, file))
    for file in suites:
        _guard(report, file, lambda: _count_suite(report, file))


def _count_task(report: ValidationReport, file: Path, seen: dict[str, Path]) -> None:
    task = load_task(file)
    if task.task_id in seen:
        raise CatalogError(file, "task_id", f"a unique id ({task.task_id!r} also in {seen[task.task_id]})")
    seen[task.task_id] = file
    _count_loaded(report, task)


def _count_loaded(report: ValidationReport, task) -> None:
    """Unknown keys are kept for UniClawBench compatibility, but a typo should still be seen."""
    for key in task.spec.model_extra or {}:
        report.warnings.append(f"{task.task_file}: {key}: unknown task field (kept, not used)")
    report.warnings.extend(task.warnings)
    problems = missing_content(task)
    if problems:
        report.missing[task.task_id] = [p.path for p in problems]
        (report.problems if report.strict else report.warnings).extend(p.line(task.task_file) for p in problems)
        if report.strict:
            return
    report.counts["closed-loop tasks"] += 1
    report.tasks.append(task_line(task))


def task_line(task) -> str:
    """`id  category  lang/capability  rubric: N checkpoints, M caps[, K checks]`."""
    rubric = task.rubric
    shape = f"{len(rubric.checkpoints)} checkpoints" if rubric.checkpoints else "rubric as text"
    checks = f", {len(task.checks.checks)} checks" if task.checks else ""
    return (f"{task.task_id}  {task.spec.category}  {task.language}/{task.capability}  "
            f"{shape}, {len(rubric.caps)} caps{checks}")


def _validate_yaml(report: ValidationReport, file: Path) -> None:
    if file.parent.name == "suites":
        _count_suite(report, file)
    elif file.name == FOLDER_TASK_FILE or file.parent.parent.name == "tasks":
        _count_loaded(report, load_task(file))
    else:
        raise CatalogError(file, "<path>", "a suites/<name>.yaml, a task.yaml or tasks/<category>/<id>.yaml")


def _count_suite(report: ValidationReport, file: Path) -> None:
    suite = read_suite(file)
    check_suite(suite, index_catalog(file.resolve().parent.parent, suite))
    report.counts["suites"] += 1
