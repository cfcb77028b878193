"""SWE-bench-shaped reports: per-instance `report.json` and the run summary, written atomically."""

from __future__ import annotations

import json
from pathlib import Path

from clawmark.fsio import atomic_write_text
from clawmark.jsontypes import JsonValue
from typing import Any, Mapping

from clawmark.swe.log_grading import GradeResult

REPORT_FILE = "report.json"


def instance_report(instance_id: str, model_patch: str | None, result: GradeResult | None) -> dict[str, Any]:
    """`{iid: {patch_is_None, patch_exists, patch_successfully_applied, resolved[, tests_status]}}`.

    `result` is None when nothing was evaluated (no patch, or the patch never applied).
    As in swebench, `tests_status` is present only when the log gave a result, and
    `patch_successfully_applied` means "the log gave a result".
    """
    entry: dict[str, Any] = {"patch_is_None": model_patch is None, "patch_exists": model_patch is not None,
                             "patch_successfully_applied": False, "resolved": False}
    if model_patch is not None and result is not None and result.no_result_reason is None:
        entry["patch_successfully_applied"] = True
        entry["resolved"] = result.resolved
        entry["tests_status"] = result.tests_status
    return {instance_id: entry}


def run_summary(instance_ids: list[str], predictions: Mapping[str, str | None],
                reports: Mapping[str, Mapping[str, Any] | None]) -> dict[str, Any]:
    """swebench's run report (counts and sorted id lists) for one run.

    `predictions` maps instance id -> model patch; `reports` maps instance id -> its
    instance_report (None or absent: the evaluation errored before writing one).
    An instance with no prediction is incomplete; an empty or None patch is `empty_patch`
    and never run; a report counts as resolved or unresolved; no report is an error.
    Additive to swebench's keys: `no_result_ids`, the reported instances whose log gave no
    result (swebench counts them as unresolved; so do we, but they are named apart).
    """
    ids = _buckets(instance_ids, predictions, reports)
    summary: dict[str, Any] = {"total_instances": len(instance_ids), "submitted_instances": len(predictions)}
    for key in ("completed", "resolved", "unresolved", "empty_patch", "error"):
        summary[f"{key}_instances"] = len(ids[key])
    for key in ("completed", "incomplete", "empty_patch"):
        summary[f"{key}_ids"] = ids[key]
    summary["submitted_ids"] = sorted(predictions)
    for key in ("resolved", "unresolved", "error"):
        summary[f"{key}_ids"] = ids[key]
    no_result = [i for i in ids["unresolved"] if not _entry(reports, i).get("patch_successfully_applied")]
    summary["no_result_instances"], summary["no_result_ids"] = len(no_result), no_result
    return summary


def _buckets(instance_ids: list[str], predictions: Mapping[str, str | None],
             reports: Mapping[str, Mapping[str, Any] | None]) -> dict[str, list[str]]:
    """Sorted instance ids per swebench bucket; `completed` = resolved + unresolved."""
    ids: dict[str, set[str]] = {key: set() for key in
                                ("incomplete", "empty_patch", "resolved", "unresolved", "error")}
    for instance_id in instance_ids:
        ids[_bucket(instance_id, predictions, reports)].add(instance_id)
    ids["completed"] = ids["resolved"] | ids["unresolved"]
    return {key: sorted(members) for key, members in ids.items()}


def _bucket(instance_id: str, predictions: Mapping[str, str | None],
            reports: Mapping[str, Mapping[str, Any] | None]) -> str:
    if instance_id not in predictions:
        return "incomplete"
    if predictions[instance_id] in ("", None):
        return "empty_patch"
    entry = _entry(reports, instance_id)
    if "resolved" not in entry:
        return "error"
    return "resolved" if entry["resolved"] else "unresolved"


def _entry(reports: Mapping[str, Mapping[str, Any] | None], instance_id: str) -> Mapping[str, Any]:
    report = reports.get(instance_id)
    entry = report.get(instance_id) if isinstance(report, Mapping) else None
    return entry if isinstance(entry, Mapping) else {}


def write_json_atomic(path: str | Path, data: JsonValue) -> Path:
    """Write JSON so readers see the old file or the whole new one, never a torn one
    ("report.json exists" means the instance is done)."""
    return atomic_write_text(path, json.dumps(data, indent=4) + "\n")


def write_instance_report(folder: str | Path, report: Mapping[str, Any]) -> Path:
    """`folder/report.json`, atomically."""
    return write_json_atomic(Path(folder) / REPORT_FILE, report)
