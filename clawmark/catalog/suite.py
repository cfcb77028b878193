"""Suites: named task lists in `<catalog>/suites/<name>.yaml`, checked against the catalog."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from clawmark.catalog.errors import CatalogError, UnknownTask, from_validation
from clawmark.catalog.package import load_tasks
from clawmark.catalog.swe import ID_PATTERN, load_instances
from clawmark.settings import settings

INSTANCE_SUFFIXES = (".jsonl", ".json", ".parquet")
Track = Literal["closed_loop", "patch", "mixed"]


class Suite(BaseModel):
    """A named list of closed-loop task ids and/or SWE instance ids."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(pattern=ID_PATTERN.pattern)
    description: str = ""
    track: Track
    tasks: list[str] = Field(min_length=1, description="Task or instance ids, run in this order.")
    instances: Path | None = Field(None, description="Extra instance file for patch ids, relative to the suite file.")
    tree: Literal["uniclawbench"] | None = Field(None, description="The ids are of an upstream task tree the "
                                                 "user gives at use (a sweep's tasks_dir, `run --tasks`), not of "
                                                 "the bundled catalog; they are checked against that tree then.")
    file: Path | None = Field(None, description="Where the suite was read from (set by the loader).")

    @field_validator("tasks")
    @classmethod
    def _ids_unique_and_valid(cls, ids: list[str]) -> list[str]:
        for task_id in ids:
            if not ID_PATTERN.match(task_id):
                raise ValueError(f"ids matching {ID_PATTERN.pattern} (got {task_id!r})")
        if len(set(ids)) != len(ids):
            raise ValueError("each id once")
        return ids


class CatalogIndex(BaseModel):
    """The ids a catalog holds, per track."""

    closed_loop: set[str]
    patch: set[str]


def suites_dir(catalog_dir: Path | None = None) -> Path:
    return (catalog_dir or settings().catalog_dir) / "suites"


def suite_files(catalog_dir: Path | None = None) -> list[Path]:
    folder = suites_dir(catalog_dir)
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


def load_suite(name: str | Path, catalog_dir: Path | None = None, check: bool = True) -> Suite:
    """A suite by name (from the catalog's suites/) or by path; `check` verifies every id exists."""
    file = Path(name) if str(name).endswith((".yaml", ".yml")) else suites_dir(catalog_dir) / f"{name}.yaml"
    suite = read_suite(file)
    if check:
        catalog_root = catalog_dir or file.resolve().parent.parent
        check_suite(suite, index_catalog(catalog_root, suite))
    return suite


def read_suite(file: Path) -> Suite:
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(file, "<file>", f"a readable suite YAML ({exc.__class__.__name__})") from None
    except yaml.YAMLError as exc:
        raise CatalogError(file, "<yaml>", f"valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    if not isinstance(data, dict):
        raise CatalogError(file, "<root>", "a mapping with name, track and tasks")
    try:
        suite = Suite.model_validate(data)
    except ValidationError as err:
        raise from_validation(file, err) from None
    if suite.name != file.stem:
        raise CatalogError(file, "name", f"the file name {file.stem!r} (got {suite.name!r})")
    extra = (file.parent / suite.instances).resolve() if suite.instances else None
    return suite.model_copy(update={"file": file.resolve(), "instances": extra})


def index_catalog(catalog_dir: Path, suite: Suite | None = None) -> CatalogIndex:
    """Ids of the bundled closed-loop tasks and of the instance files under `swe/`.

    With a suite, only the tracks it needs are read (a patch suite never loads task packages)."""
    track = suite.track if suite is not None else "mixed"
    closed = catalog_dir / "closed_loop"
    closed_ids: set[str] = set()
    if track != "patch" and closed.is_dir():
        closed_ids = {t.task_id for t in load_tasks(closed)}
    instance_files = [p for p in sorted((catalog_dir / "swe").glob("*")) if p.suffix in INSTANCE_SUFFIXES]
    if suite is not None and suite.instances is not None:
        instance_files.append(suite.instances)
    patch_ids: set[str] = set()
    if track != "closed_loop":
        patch_ids = {i.instance_id for f in instance_files for i in load_instances(f)}
    return CatalogIndex(closed_loop=closed_ids, patch=patch_ids)


def check_suite(suite: Suite, index: CatalogIndex) -> None:
    """UnknownTask naming the first id the suite's track cannot find (none for an upstream tree's suite)."""
    if suite.tree is not None:
        return
    known = {"closed_loop": index.closed_loop, "patch": index.patch,
             "mixed": index.closed_loop | index.patch}[suite.track]
    for position, task_id in enumerate(suite.tasks):
        if task_id not in known:
            raise UnknownTask(suite.file or suite.name, f"tasks[{position}]",
                              f"an id of a {suite.track.replace('_', '-')} task in the catalog (got {task_id!r})")
