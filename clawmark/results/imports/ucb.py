"""UniClawBench's published per-task table (`results.json`, schema `clawbench.static.v2`) and,
optionally, its run summaries (`runs.json`) as closed-loop rows.

What maps where (nothing else is set; cost stays NaN, the threshold is not published):
- backend → claw (`openclaw_edict` is EDICT on OpenClaw: claw `edict`); model_slug → model;
  category `101_skill_usage` / `201_skill_usage_zh` → capability `skill_usage`, language en / zh.
- score, passed as published (the verdict stands; it is not re-derived from a threshold);
  prompt / completion tokens → executor input / output tokens (null stays null, and so does a
  negative count: the import config records how many there were);
  runtime_ms → wall_total_s.
- From runs.json: finalStatus → status (a "pass" label on a row that did not pass — upstream
  defect 2 — becomes `fail` with failure_reason `published_pass_not_passed`);
  supervisionCycleCount → turns (judged executor turns); continuationCount → followups_used;
  a passed row that stopped on `pass` passed on its last judged turn (best_turn = turns − 1);
  createdAt → started_at and finished_at (no start is published). Without runs.json the status
  is pass / fail from `passed` and the timestamps are the import's.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from clawmark.results.imports.published import (
    ImportInvalid, ImportSummary, Source, field, identity, make_row, non_negative, read_published, write_import)
from clawmark.results.row import AttemptRow
from clawmark.results.store import ResultStore
from clawmark.results.usage import RoleUsage

SCHEMA = "clawbench.static.v2"
REPOSITORY = "UniClawBench/UniClawBench.github.io"
BACKEND_CLAWS = {"openclaw": "openclaw", "nanobot": "nanobot", "openclaw_edict": "edict"}
FINAL_STATUSES = ("pass", "fail", "budget_exhausted", "global_timeout")
RUN_FIELDS = ("taskId", "backend", "modelSlug", "finalScore", "passed", "finalStatus", "continuationCount",
              "supervisionCycleCount", "createdAt")
_CATEGORY = re.compile(r"^(?P<lang>[12])\d\d_(?P<capability>[a-z_]+?)(?:_zh)?$")
NUMBER = (int, float)
TOKEN_FIELDS = ("prompt_tokens", "completion_tokens")


def import_ucb_results(store: ResultStore, sweep_id: str, results: str | Path, runs: str | Path | None = None, *,
                       commit: str | None = None, repository: str = REPOSITORY) -> ImportSummary:
    data, source = read_published(results, repository, commit)
    published = _result_rows(data, source.path)
    summaries = _run_rows(runs, published) if runs is not None else {}
    rows = [_row(sweep_id, source, record, label, summaries.get(key)) for key, (label, record) in published.items()]
    negative = sum(1 for _, r in published.values() for n in TOKEN_FIELDS if (r[n] or 0) < 0)
    meta = {"kind": "uniclawbench-results", "runs": Path(runs).name if runs else None, "per_task_outcomes": True,
            "negative_token_counts_read_as_unknown": negative}
    return write_import(store, sweep_id, rows, source, meta)


def _document(data: object, file: Path, kind: str, rows_key: str) -> list:
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise ImportInvalid(file, "schema", f"{SCHEMA!r} (UniClawBench {kind}), got {found!r}")
    if not isinstance(data.get(rows_key), list) or not data[rows_key]:
        raise ImportInvalid(file, rows_key, f"a non-empty list of {kind} rows")
    return data[rows_key]


def _result_rows(data: object, file: Path) -> dict[tuple[str, str, str], tuple[str, dict]]:
    """(backend, model, task) → (row label for errors, validated record); duplicates refused."""
    found: dict[tuple[str, str, str], tuple[str, dict]] = {}
    for index, record in enumerate(_document(data, file, "results", "rows")):
        label = f"rows[{index}]"
        task = field(record, "task_id", (str,), "a task id", file=file, row=label)
        label = f"rows[{index}] ({task})"
        backend = field(record, "backend", (str,), f"one of {sorted(BACKEND_CLAWS)}", file=file, row=label)
        if backend not in BACKEND_CLAWS:
            raise ImportInvalid(file, "backend", f"one of {sorted(BACKEND_CLAWS)}, got {backend!r}", label)
        model = field(record, "model_slug", (str,), "a model slug", file=file, row=label)
        category = field(record, "category", (str,), "a category like 101_skill_usage", file=file, row=label)
        if not _CATEGORY.match(category):
            raise ImportInvalid(file, "category", f"a category like 101_skill_usage or 201_skill_usage_zh, got {category!r}", label)
        score = field(record, "score", NUMBER, "a score in [0, 1]", file=file, row=label)
        if not 0 <= score <= 1:
            raise ImportInvalid(file, "score", f"a score in [0, 1], got {score!r}", label)
        field(record, "passed", (bool,), "true or false", file=file, row=label)
        for name in TOKEN_FIELDS:
            field(record, name, NUMBER, "a count or null", file=file, row=label, nullable=True)
        non_negative(field(record, "runtime_ms", NUMBER, "milliseconds or null", file=file, row=label, nullable=True),
                     "runtime_ms", file=file, row=label)
        key = (backend, model, task)
        if key in found:
            raise ImportInvalid(file, "task_id", f"one row per backend × model × task; {backend} × {model} × {task} "
                                f"repeats {found[key][0]}", label)
        found[key] = (label, record)
    return found


def _run_rows(path: str | Path, published: dict) -> dict[tuple[str, str, str], dict]:
    data, source = read_published(path, REPOSITORY, None)
    file = source.path
    names = data.get("fields") if isinstance(data, dict) else None
    if not isinstance(names, list) or (missing := [n for n in RUN_FIELDS if n not in names]):
        raise ImportInvalid(file, "fields", f"a column list naming {list(RUN_FIELDS)}"
                            + (f" (missing {missing})" if isinstance(names, list) else ""))
    runs: dict[tuple[str, str, str], dict] = {}
    for index, packed in enumerate(_document(data, file, "runs", "runs")):
        if not isinstance(packed, list) or len(packed) != len(names):
            raise ImportInvalid(file, "runs", f"a list of {len(names)} values (one per field)", f"runs[{index}]")
        record = dict(zip(names, packed))
        label = f"runs[{index}] ({record.get('taskId')})"
        key = tuple(field(record, n, (str,), "a string", file=file, row=label) for n in ("backend", "modelSlug", "taskId"))
        if key not in published:
            raise ImportInvalid(file, "taskId", f"a task of the results file; {' × '.join(key)} is not there", label)
        if key in runs:
            raise ImportInvalid(file, "taskId", f"one run per backend × model × task; {' × '.join(key)} repeats", label)
        _check_run(record, published[key], file, label)
        runs[key] = record
    if missing := [published[k][0] for k in published if k not in runs]:
        raise ImportInvalid(file, "runs", f"a run for every results row; none for {len(missing)} (first: {missing[0]})")
    return runs


def _check_run(record: dict, published: tuple[str, dict], file: Path, label: str) -> None:
    status = field(record, "finalStatus", (str,), f"one of {list(FINAL_STATUSES)}", file=file, row=label)
    if status not in FINAL_STATUSES:
        raise ImportInvalid(file, "finalStatus", f"one of {list(FINAL_STATUSES)}, got {status!r}", label)
    for name in ("continuationCount", "supervisionCycleCount"):
        non_negative(field(record, name, (int,), "a count", file=file, row=label), name, file=file, row=label)
    field(record, "createdAt", NUMBER, "a Unix time", file=file, row=label, nullable=True)
    result_label, result = published
    for run_name, result_name in (("finalScore", "score"), ("passed", "passed")):
        if record.get(run_name) != result[result_name]:
            raise ImportInvalid(file, run_name, f"the results file's {result_name} {result[result_name]!r} of "
                                f"{result_label}, got {record.get(run_name)!r}", label)


def _row(sweep_id: str, source: Source, record: dict, label: str, run: dict | None) -> AttemptRow:
    match = _CATEGORY.match(record["category"])
    passed = record["passed"]
    fields: dict[str, Any] = {
        **identity(source), "sweep_id": sweep_id, "track": "closed_loop", "task_id": record["task_id"],
        "category": record["category"], "capability": match["capability"],
        "language": "en" if match["lang"] == "1" else "zh",
        "claw": BACKEND_CLAWS[record["backend"]], "model": record["model_slug"],
        "status": "pass" if passed else "fail", "passed": passed, "score": float(record["score"]),
        "usage": {"executor": RoleUsage(input_tokens=_count(record["prompt_tokens"]),
                                        output_tokens=_count(record["completion_tokens"]))},
        "wall": {"total": math.nan if record["runtime_ms"] is None else record["runtime_ms"] / 1000},
    }
    if run is not None:
        fields |= _run_fields(run, passed)
    return make_row(fields, file=source.path, row=label)


def _count(value: int | float | None) -> int | None:
    """A published token count; a negative one (20 rows of the v2 table) is no count at all."""
    return None if value is None or value < 0 else int(value)


def _run_fields(run: dict, passed: bool) -> dict[str, Any]:
    status, turns = run["finalStatus"], run["supervisionCycleCount"]
    fields: dict[str, Any] = {"status": status, "turns": turns, "followups_used": run["continuationCount"]}
    if status == "pass" and not passed:
        fields |= {"status": "fail", "failure_reason": "published_pass_not_passed"}
    elif status == "pass" and turns:
        fields["best_turn"] = turns - 1
    if run["createdAt"] is not None:
        fields["finished_at"] = fields["started_at"] = datetime.fromtimestamp(run["createdAt"], UTC)
    return fields
