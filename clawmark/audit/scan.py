"""`audit_sweep`: every file and row of one sweep scanned for secret values, and what the claws
and the user simulator produced scanned for their task's hidden material."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from clawmark.audit.files import cell_dir, chunks, files_under, read_head, sweep_sources
from clawmark.audit.hidden import MAX_TEXT_BYTES, HiddenMaterial, closed_loop_material, hidden_in, own_work_files
from clawmark.audit.hidden import patch_material, produced_files, readable_text
from clawmark.audit.secrets import Secret, SecretScan, environment_secrets

CHUNK_BYTES = 4 * 2**20


@dataclass(frozen=True)
class Finding:
    where: str   # a path relative to the store, or "row <cell_key>"
    what: str    # "secret OPENAI_API_KEY sk-f… (32 chars)[, base64-encoded]", "rubric: 'the total must …'"


@dataclass
class AuditReport:
    sweep_id: str
    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    rows: int = 0
    cells_checked_for_hidden: int = 0
    unknown_tasks: list[str] = field(default_factory=list)


def audit_sweep(store, sweep_id: str, environ: Mapping[str, str], *, tasks_dir: Path | None = None,
                instances: Path | None = None, extra_secrets: list[Secret] = (),
                extra_paths: list[Path] = ()) -> AuditReport:
    """Findings for one sweep of a local or remote store (artifacts, rows, pinned config, extra
    logs), every file read through the store's filesystem."""
    report = AuditReport(sweep_id)
    rows = store.read(sweep_id)
    tasks = _closed_loop_tasks(rows, tasks_dir or _pinned_tasks_dir(store, sweep_id))
    secrets = [*environment_secrets(environ, {n for t in tasks.values() for n in t.privacy_vars}), *extra_secrets]
    scan = SecretScan(secrets)
    for source in sweep_sources(store, sweep_id, extra_paths):
        report.files += 1
        report.findings += [Finding(_relative(store, source[1]), hit.describe())
                            for hit in scan.found_in_stream(chunks(source, CHUNK_BYTES))]
    for record in rows.to_dict(orient="records"):
        report.rows += 1
        text = json.dumps(record, default=str, ensure_ascii=False).encode()
        report.findings += [Finding(f"row {record['cell_key']}", hit.describe())
                            for hit in scan.found_in_stream([text])]
    materials = _materials(rows, tasks, instances, report)
    for record in rows.to_dict(orient="records"):
        material = materials.get((record["track"], record["task_id"]))
        folder = cell_dir(store, sweep_id, record["cell_key"])
        names = [path[len(folder) + 1:] for path in files_under(store.fs, folder)]
        if material is not None and names:
            report.cells_checked_for_hidden += 1
            report.findings += _hidden_findings(store, folder, names, material)
    return report


def _hidden_findings(store, folder: str, names: list[str], material: HiddenMaterial) -> list[Finding]:
    def text_of(name: str) -> str | None:
        return readable_text(name, read_head((store.fs, f"{folder}/{name}"), MAX_TEXT_BYTES))

    own = "\n".join(text_of(name) or "" for name in own_work_files(names))
    findings = []
    for name in produced_files(names):
        if text := text_of(name):
            findings += [Finding(_relative(store, f"{folder}/{name}"), f"{kind}: {evidence!r}")
                         for kind, evidence in hidden_in(text, material, own)]
    return findings


def _materials(rows, tasks: dict, instances: Path | None, report: AuditReport) -> dict:
    materials = {("closed_loop", task_id): closed_loop_material(task) for task_id, task in tasks.items()}
    patch_ids = set(rows.loc[rows["track"] == "patch", "task_id"]) if len(rows) else set()
    if patch_ids:
        from clawmark.catalog.swe import load_instances
        from clawmark.settings import TASKS_CATALOG

        by_id = {i.instance_id: i for i in load_instances(instances or TASKS_CATALOG / "swe" / "instances.jsonl")}
        materials.update({("patch", iid): patch_material(by_id[iid]) for iid in patch_ids if iid in by_id})
        report.unknown_tasks += sorted(patch_ids - set(by_id))
    closed_ids = set(rows.loc[rows["track"] == "closed_loop", "task_id"]) if len(rows) else set()
    report.unknown_tasks += sorted(closed_ids - set(tasks))
    return materials


def _closed_loop_tasks(rows, tasks_dir: Path) -> dict:
    from clawmark.catalog.package import load_tasks

    wanted = set(rows.loc[rows["track"] == "closed_loop", "task_id"]) if len(rows) else set()
    if not wanted:
        return {}
    return {t.task_id: t for t in load_tasks(tasks_dir) if t.task_id in wanted}


def _pinned_tasks_dir(store, sweep_id: str) -> Path:
    from clawmark.results.pinning import pinned_config
    from clawmark.settings import TASKS_CATALOG

    try:
        config = pinned_config(store, sweep_id)
    except (OSError, ValueError):
        return TASKS_CATALOG / "closed_loop"
    found = _find_key(config, "tasks_dir")
    return Path(found) if found else TASKS_CATALOG / "closed_loop"


def _find_key(data, key: str):
    if isinstance(data, dict):
        if isinstance(data.get(key), str):
            return data[key]
        return next((v for v in (_find_key(x, key) for x in data.values()) if v), None)
    return None


def _relative(store, path: str) -> str:
    """A store file's path from the store's root (as a local store and a remote one name it alike)."""
    root = str(store.root).rstrip("/") + "/"
    return path[len(root):] if path.startswith(root) else path
