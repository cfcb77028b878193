"""Task catalog: closed-loop task packages, SWE-bench instances and suites, with clear errors."""

from __future__ import annotations

from clawmark.catalog.check_specs import CapRule, Check, ChecksFile, CoveredCheckpoint, load_checks
from clawmark.catalog.errors import CatalogError, PathEscapeError, UnknownTask
from clawmark.catalog.eval_rule import Checkpoint, Rubric, ScoreCap, Section, parse_eval_rule
from clawmark.catalog.package import find_task_files, load_task, load_tasks
from clawmark.catalog.paths import PackageLimits
from clawmark.catalog.suite import CatalogIndex, Suite, index_catalog, load_suite
from clawmark.catalog.swe import (
    SweInstance, find_instance, find_instances, load_id_list, load_instances, load_languages,
)
from clawmark.catalog.task import ClosedLoopTask, ServiceSpec, TaskSpec, parse_category

__all__ = [
    "CapRule", "Check", "ChecksFile", "CoveredCheckpoint", "load_checks", "PackageLimits",
    "CatalogError", "PathEscapeError", "UnknownTask",
    "Checkpoint", "Rubric", "ScoreCap", "Section", "parse_eval_rule",
    "find_task_files", "load_task", "load_tasks",
    "CatalogIndex", "Suite", "index_catalog", "load_suite",
    "SweInstance", "find_instance", "find_instances", "load_id_list", "load_instances", "load_languages",
    "ClosedLoopTask", "ServiceSpec", "TaskSpec", "parse_category",
]
