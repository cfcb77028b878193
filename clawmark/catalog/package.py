"""Load closed-loop task packages in both layouts into one `ClosedLoopTask` model.

UniClawBench: `tasks/<category>/<task_id>.yaml` + `injection/<category>/<task_id>/...`.
One-folder:   `<task_id>/task.yaml` + the same subfolders beside it.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import ValidationError

from clawmark.catalog.check_specs import load_checks
from clawmark.catalog.errors import CatalogError, from_validation, read_yaml_mapping
from clawmark.catalog.eval_rule import parse_eval_rule
from clawmark.catalog.overlay import apply_overlay
from clawmark.catalog.paths import PackageLimits, check_package_tree, require_exists, resolve_inside
from clawmark.catalog.task import EVAL_RULE, ClosedLoopTask, ResolvedService, TaskSpec, parse_category

MAX_TASK_YAML_BYTES = 1024 * 1024
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
FOLDER_TASK_FILE = "task.yaml"
_MAX_DEPTH = 6


def load_task(path: str | Path, limits: PackageLimits | None = None) -> ClosedLoopTask:
    """One task: a one-folder package (folder or its task.yaml) or a UniClawBench task YAML.

    `limits` bound the package tree (default: PackageLimits.from_env())."""
    path = Path(path).resolve()
    if path.is_dir():
        if not (path / FOLDER_TASK_FILE).is_file():
            raise CatalogError(path, "<path>", f"a task folder holding {FOLDER_TASK_FILE} (for a tree use load_tasks)")
        return _load(path / FOLDER_TASK_FILE, path, "folder", limits)
    if path.name == FOLDER_TASK_FILE:
        return _load(path, path.parent, "folder", limits)
    if path.suffix in (".yaml", ".yml") and path.parent.parent.name == "tasks":
        root = path.parent.parent.parent
        return _load(path, root / "injection" / path.parent.name / path.stem, "uniclaw", limits)
    raise CatalogError(path, "<path>", "a task folder, a task.yaml, or tasks/<category>/<task_id>.yaml")


def find_task_files(root: str | Path) -> list[Path]:
    """Task entry points under `root` in either layout (nested trees allowed), sorted."""
    root = Path(root).resolve()
    if not root.is_dir():
        raise CatalogError(root, "<path>", "an existing task tree folder")
    return sorted(_walk(root, 0))


def _walk(folder: Path, depth: int) -> list[Path]:
    if (folder / FOLDER_TASK_FILE).is_file():
        return [folder / FOLDER_TASK_FILE]
    found: list[Path] = []
    if (folder / "tasks").is_dir() and (folder / "injection").is_dir():
        found += [p for p in (folder / "tasks").glob("*/*.y*ml") if p.suffix in (".yaml", ".yml")]
    if depth < _MAX_DEPTH:
        for child in sorted(folder.iterdir()):
            if child.is_dir() and not child.name.startswith(".") and child.name not in ("tasks", "injection"):
                found += _walk(child, depth + 1)
    return found


def load_tasks(root: str | Path, limits: PackageLimits | None = None) -> list[ClosedLoopTask]:
    """Every task under `root`; the first broken package or a duplicate id raises CatalogError."""
    tasks: dict[str, ClosedLoopTask] = {}
    for file in find_task_files(root):
        task = load_task(file, limits)
        if task.task_id in tasks:
            raise CatalogError(file, "task_id", f"a unique id ({task.task_id!r} also in "
                               f"{tasks[task.task_id].task_file})")
        tasks[task.task_id] = task
    return [tasks[k] for k in sorted(tasks)]


def _load(file: Path, package: Path, layout: str, limits: PackageLimits | None) -> ClosedLoopTask:
    spec = _read_spec(file)
    _check_identity(spec, file, layout)
    spec, hints = apply_overlay(spec, layout)
    require_exists(package, file, "task_id", "folder")
    check_package_tree(package, file, limits)
    language, capability = parse_category(spec.category, spec.task)
    references = _references(spec, package, file)
    warnings: list[str] = []
    rubric = parse_eval_rule(package / EVAL_RULE)
    return ClosedLoopTask(
        spec=spec, layout=layout, task_file=file, package_dir=package, language=language,
        capability=capability, sources_dir=_sources(spec, package, file),
        skill_dirs=_skills(spec, package, file, warnings), services=_services(spec, package, file),
        reference_files=references, pre_exec_scripts=_pre_exec(spec, package, file),
        privacy_vars=_privacy(package / ".privacy"), rubric=rubric,
        checks=load_checks(package, rubric), warnings=rubric.warnings + warnings, hints=hints,
    )


def _read_spec(file: Path) -> TaskSpec:
    data = _read_yaml(file)
    if "privacy" in data:
        raise CatalogError(file, "privacy", "no secrets in the YAML: list env-var names in .privacy")
    try:
        return TaskSpec.model_validate(data)
    except ValidationError as err:
        raise from_validation(file, err) from None


def _read_yaml(file: Path) -> dict:
    return read_yaml_mapping(file, max_bytes=MAX_TASK_YAML_BYTES, what="task YAML", root="a mapping of task fields")


def _check_identity(spec: TaskSpec, file: Path, layout: str) -> None:
    name = file.parent.name if layout == "folder" else file.stem
    if spec.task_id != name:
        raise CatalogError(file, "task_id", f"the {'folder' if layout == 'folder' else 'file'} name {name!r} "
                           f"(got {spec.task_id!r})")
    if layout == "uniclaw" and spec.category != file.parent.name:
        raise CatalogError(file, "category", f"the category folder {file.parent.name!r} (got {spec.category!r})")


def _sources(spec: TaskSpec, package: Path, file: Path) -> Path | None:
    """Entries are informative (the whole folder is copied): they must stay inside, need not exist."""
    folder = package / "sources"
    for index, declared in enumerate(spec.sources):
        if "://" not in declared:
            base = package if declared.startswith("sources/") else folder
            resolve_inside(package, declared, file, f"sources[{index}]", base)
    return folder if folder.is_dir() else None


def _skills(spec: TaskSpec, package: Path, file: Path, warnings: list[str]) -> dict[str, Path]:
    """Skill folders of the package, whatever their entry file (upstream copies the folder whole:
    `clawsec` has only a lowercase `skill.md`); a declared skill it lacks may be a base skill: warn."""
    skills: dict[str, Path] = {}
    for index, declared in enumerate(spec.skills):
        field = f"skills[{index}]"
        folder = resolve_inside(package, declared.removeprefix("skills/").rstrip("/"), file, field, package / "skills")
        if folder.parent != package / "skills":
            raise CatalogError(file, field, f"a skill name, one folder under skills/ (got {declared!r})")
        if not folder.is_dir():
            warnings.append(f"{file}: {field}: skill {folder.name!r} is not in the package (a base skill of the runtime?)")
            continue
        skills[folder.name] = folder
    return skills


def _services(spec: TaskSpec, package: Path, file: Path) -> list[ResolvedService]:
    resolved = []
    for index, service in enumerate(spec.services):
        field = f"services[{index}].path"
        folder = resolve_inside(package, service.path.removeprefix("services/"), file, field, package / "services")
        resolved.append(ResolvedService(spec=service, folder=require_exists(folder, file, field)))
    return resolved


def _references(spec: TaskSpec, package: Path, file: Path) -> list[Path]:
    paths = [require_exists(resolve_inside(package, declared, file, f"references[{index}]"), file,
                            f"references[{index}]") for index, declared in enumerate(spec.references)]
    return paths


def _pre_exec(spec: TaskSpec, package: Path, file: Path) -> list[Path]:
    scripts = []
    for index, declared in enumerate(spec.pre_exec):
        path = resolve_inside(package, declared, file, f"pre_exec[{index}]")
        if path.is_relative_to(package / "sources"):
            raise CatalogError(file, f"pre_exec[{index}]", "a script outside sources/ (sources are shown to the executor)")
        scripts.append(require_exists(path, file, f"pre_exec[{index}]", "file"))
    return scripts


def _privacy(file: Path) -> list[str]:
    if not file.exists():
        return []
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(file, "<file>", f"a readable UTF-8 list of env-var names ({exc.__class__.__name__})") from None
    names = []
    for number, line in enumerate(lines, start=1):
        name = line.split("#", 1)[0].strip()
        if name and not ENV_NAME.match(name):
            raise CatalogError(file, "env var", f"one env-var name a line (got {name!r})", number)
        if name:
            names.append(name)
    return names
