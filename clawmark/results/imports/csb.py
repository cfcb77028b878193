"""Claw-SWE-Bench's published leaderboard JSON as patch-track rows.

The leaderboard publishes, per setup, the instances run, how many resolved, the total USD cost and
the mean duration; it does not say WHICH instances resolved. A setup becomes `instances` rows
whose task ids are its own placeholders (`<claw>/<model>/unattributed-001` …), the first
`resolved` of them resolved: pass@1 and total cost come out exactly as published, and since no
two setups share a task id, nothing pairs their instances (paired comparisons see 0 shared tasks
and every bootstrap resamples each setup on its own). Each row carries cost / instances (NaN
when the cost is not published) and the mean duration as its wall time.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from clawmark.results.imports.published import (
    ImportInvalid, ImportSummary, Source, field, identity, make_row, non_negative, read_published, write_import)
from clawmark.results.row import AttemptRow
from clawmark.results.store import ResultStore
from clawmark.results.usage import RoleUsage

REPOSITORY = "opensquilla/claw-swe-bench"
SYSTEM_CLAWS = {"openclaw": "openclaw", "hermes-agent": "hermes", "zeroclaw": "zeroclaw",
                "genericagent": "genericagent", "nanobot": "nanobot", "edict": "edict",
                "mini-swe-agent": "mini-swe-agent"}
NUMBER = (int, float)


def import_csb_leaderboard(store: ResultStore, sweep_id: str, leaderboard: str | Path, *, commit: str | None = None,
                           repository: str = REPOSITORY) -> ImportSummary:
    data, source = read_published(leaderboard, repository, commit)
    file = source.path
    if not isinstance(data, dict) or not isinstance(data.get("sections"), dict) or not data["sections"]:
        raise ImportInvalid(file, "sections", "an object of leaderboard sections (a Claw-SWE-Bench leaderboard JSON)")
    setups: dict[tuple[str, str], tuple[str, dict]] = {}
    for name, section in data["sections"].items():
        for label, claw, model, row in _section_rows(name, section, file):
            setups.setdefault((claw, model), (label, row))  # a setup shown in two sections is one setup
    rows = [r for (claw, model), (label, row) in setups.items() for r in _rows(sweep_id, source, claw, model, row, label)]
    meta = {"kind": "claw-swe-bench-leaderboard", "per_task_outcomes": False,
            "split": (data.get("meta") or {}).get("split"), "updated": (data.get("meta") or {}).get("updated")}
    return write_import(store, sweep_id, rows, source, meta)


def _section_rows(name: str, section: object, file: Path):
    """(label, claw, model, row) of one section: `rows` under a fixed claw, or `groups` under a fixed model."""
    where = f"sections.{name}"
    if not isinstance(section, dict) or not ("rows" in section or "groups" in section):
        raise ImportInvalid(file, "rows", "a section with rows (fixed claw) or groups (fixed model)", where)
    if "rows" in section:
        fixed = field(section, "fixed", (str,), "the fixed harness, e.g. 'OpenClaw harness'", file=file, row=where)
        claw = _claw(fixed.removesuffix(" harness"), file, f"{where}.fixed")
        for index, row in enumerate(_list(section, "rows", file, where)):
            label = f"{where}.rows[{index}]"
            yield label, claw, field(row, "system", (str,), "the model's name", file=file, row=label), row
    for g, group in enumerate(_list(section, "groups", file, where) if "groups" in section else []):
        glabel = f"{where}.groups[{g}]"
        model = field(group, "model", (str,), "the fixed model's name", file=file, row=glabel)
        for index, row in enumerate(_list(group, "rows", file, glabel)):
            label = f"{glabel}.rows[{index}]"
            yield label, _claw(field(row, "system", (str,), "the claw's name", file=file, row=label), file, label), model, row


def _list(record: dict, name: str, file: Path, where: str) -> list:
    value = field(record, name, (list,), "a list", file=file, row=where)
    return value


def _claw(system: str, file: Path, where: str) -> str:
    slug = re.sub(r"\s+", "-", system.strip().lower())
    if slug not in SYSTEM_CLAWS:
        raise ImportInvalid(file, "system", f"a claw clawmark knows ({', '.join(sorted(SYSTEM_CLAWS))}), got {system!r}", where)
    return SYSTEM_CLAWS[slug]


def _rows(sweep_id: str, source: Source, claw: str, model: str, row: dict, label: str) -> list[AttemptRow]:
    file = source.path
    instances = non_negative(field(row, "instances", (int,), "the instance count", file=file, row=label), "instances", file=file, row=label)
    resolved = non_negative(field(row, "resolved", (int,), "the resolved count", file=file, row=label), "resolved", file=file, row=label)
    if resolved > instances:
        raise ImportInvalid(file, "resolved", f"at most instances ({instances}), got {resolved}", label)
    rate = field(row, "total_pass1", NUMBER, "the pass@1 in percent", file=file, row=label)
    if round(100 * resolved / instances, 1) != round(rate, 1) if instances else rate:
        raise ImportInvalid(file, "total_pass1", f"resolved / instances = {100 * resolved / max(instances, 1):.1f} %, got {rate}", label)
    cost = non_negative(field(row, "cost_usd", NUMBER, "USD or null", file=file, row=label, nullable=True), "cost_usd", file=file, row=label)
    duration = non_negative(field(row, "avg_duration_s", NUMBER, "seconds or null", file=file, row=label, nullable=True),
                            "avg_duration_s", file=file, row=label)
    share = math.nan if cost is None else cost / instances
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{claw}/{model}")
    common: dict[str, Any] = {**identity(source), "sweep_id": sweep_id, "track": "patch", "claw": claw, "model": model,
                              "usage": {"executor": RoleUsage(cost_usd=share)},
                              "wall": {"total": math.nan if duration is None else float(duration)}}
    return [make_row({**common, "task_id": f"{slug}/unattributed-{i + 1:03d}",
                      "status": "resolved" if i < resolved else "unresolved", "passed": i < resolved},
                     file=file, row=label) for i in range(instances)]
