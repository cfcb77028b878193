"""`audit_sweep`: every file and row of one sweep scanned for secret values, and what the claws
and the user simulator produced scanned for their task's hidden material."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from clawmark.audit.files import cell_dir, chunks, files_under, read_head, sweep_sources
from clawmark.audit.hidden import HiddenMaterial, closed_loop_material, hidden_in, patch_material, with_references
from clawmark.audit.produced import attempt_reference_files, own_work, produced_files, split_text
from clawmark.audit.secrets import Secret, SecretScan, environment_secrets
from clawmark.catalog.errors import CatalogError
from clawmark.catalog.package import load_tasks
from clawmark.catalog.swe import load_instances
from clawmark.fsio import decode_text
from clawmark.results.pinning import pinned_config
from clawmark.settings import TASKS_CATALOG

CHUNK_BYTES = 4 * 2**20
MAX_TEXT_BYTES = 8 * 2**20


class AuditIncomplete(ValueError):
    """The audit cannot check what it was asked to: a task's hidden material is not found (no
    task tree, a tree without the task, no SWE instances file). Never reported as clean."""


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


def audit_sweep(store, sweep_id: str, environ: Mapping[str, str], *, tasks_dir: Path | None = None,
                instances: Path | None = None, extra_secrets: list[Secret] = (),
                extra_paths: list[Path] = ()) -> AuditReport:
    """Findings for one sweep of a local or remote store (artifacts, rows, pinned config, extra
    logs), every file read through the store's filesystem. Raises AuditIncomplete when the
    hidden material of a task of the sweep cannot be found."""
    report = AuditReport(sweep_id)
    rows = store.read(sweep_id)
    tasks = _closed_loop_tasks(rows, tasks_dir, store, sweep_id)
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
    materials = _materials(rows, tasks, instances)
    for record in rows.to_dict(orient="records"):
        material = materials.get((record["track"], record["task_id"]))
        folder = cell_dir(store, sweep_id, record["cell_key"])
        names = [path[len(folder) + 1:] for path in files_under(store.fs, folder)]
        if material is not None and names:
            report.cells_checked_for_hidden += 1
            material = with_references(material, _attempt_references(store, folder, names))
            report.findings += _hidden_findings(store, folder, names, material)
    return report


def _attempt_references(store, folder: str, names: list[str]) -> list[tuple[str, str]]:
    """(name, text) of the references a pre_exec regenerated for this attempt (package/)."""
    found = []
    for name in attempt_reference_files(names):
        text = decode_text(read_head((store.fs, f"{folder}/{name}"), MAX_TEXT_BYTES))
        if text is not None:
            found.append((name.rsplit("/", 1)[-1], text))
    return found


def _hidden_findings(store, folder: str, names: list[str], material: HiddenMaterial) -> list[Finding]:
    texts = [text for name in produced_files(names)
             if (text := split_text(name, read_head((store.fs, f"{folder}/{name}"), MAX_TEXT_BYTES)))]
    everything = own_work(texts)
    findings = []
    for text in texts:
        before = own_work(texts, text.cycle) if text.follow_up else everything
        found = hidden_in(text.seen, material, before) + hidden_in(text.written, material, everything, written=True)
        findings += [Finding(_relative(store, f"{folder}/{text.name}"), f"{kind}: {evidence!r}")
                     for kind, evidence in dict.fromkeys(found)]
    return findings


def _materials(rows, tasks: dict, instances: Path | None) -> dict:
    materials = {("closed_loop", task_id): closed_loop_material(task) for task_id, task in tasks.items()}
    patch_ids = set(rows.loc[rows["track"] == "patch", "task_id"]) if len(rows) else set()
    if patch_ids:
        file = instances or TASKS_CATALOG / "swe" / "instances.jsonl"
        by_id = {i.instance_id: i for i in load_instances(file)}
        if missing := sorted(patch_ids - set(by_id)):
            raise AuditIncomplete(f"{file}: no instance {', '.join(missing)} (give the sweep's --instances file)")
        materials.update({("patch", iid): patch_material(by_id[iid]) for iid in patch_ids})
    return materials


def _closed_loop_tasks(rows, tasks_dir: Path | None, store, sweep_id: str) -> dict:
    """The sweep's closed-loop tasks, from `tasks_dir`, else the tree the sweep pinned, else the
    bundled catalog (a sweep that names no tree runs it); every one of them must be there: its
    hidden material is what the audit looks for."""
    wanted = set(rows.loc[rows["track"] == "closed_loop", "task_id"]) if len(rows) else set()
    if not wanted:
        return {}
    where = tasks_dir or _pinned_tasks_dir(store, sweep_id)
    try:
        tasks = {t.task_id: t for t in load_tasks(where) if t.task_id in wanted}
    except CatalogError as exc:
        raise AuditIncomplete(f"task tree {where}: {exc}") from None
    if missing := sorted(wanted - set(tasks)):
        raise AuditIncomplete(f"task tree {where} holds no task {', '.join(missing)} (give --tasks-dir, the tree "
                              f"the sweep ran)")
    return tasks


def _pinned_tasks_dir(store, sweep_id: str) -> Path:
    try:
        found = _find_key(pinned_config(store, sweep_id), "tasks_dir")
    except (OSError, ValueError):
        found = None
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
