"""`audit_sweep`: every file and row of one sweep scanned for secret values, and what the claws
and the user simulator produced scanned for their task's hidden material."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from clawmark.audit.hidden import HiddenMaterial, closed_loop_material, hidden_in, own_work_text, patch_material
from clawmark.audit.hidden import produced_files, readable_text
from clawmark.audit.secrets import Secret, environment_secrets, secrets_in

CHUNK_BYTES = 4 * 2**20


@dataclass(frozen=True)
class Finding:
    where: str   # a path relative to the store, or "row <cell_key>"
    what: str    # "secret OPENAI_API_KEY sk-f… (32 chars)", "rubric: 'the total must …'"


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
    """Findings for one sweep of a local store (artifacts, rows, pinned config, extra logs)."""
    report = AuditReport(sweep_id)
    rows = store.read(sweep_id)
    tasks = _closed_loop_tasks(rows, tasks_dir or _pinned_tasks_dir(store, sweep_id))
    secrets = [*environment_secrets(environ, {n for t in tasks.values() for n in t.privacy_vars}), *extra_secrets]
    for path in _sweep_files(store, sweep_id, extra_paths):
        report.files += 1
        report.findings += [Finding(_relative(store, path), f"secret {s.name} {s.masked()}")
                            for s in _secrets_in_file(path, secrets)]
    for record in rows.to_dict(orient="records"):
        report.rows += 1
        text = json.dumps(record, default=str, ensure_ascii=False).encode()
        report.findings += [Finding(f"row {record['cell_key']}", f"secret {s.name} {s.masked()}")
                            for s in secrets_in(text, secrets)]
    materials = _materials(rows, tasks, instances, report)
    for record in rows.to_dict(orient="records"):
        material = materials.get((record["track"], record["task_id"]))
        cell_dir = store.layout(sweep_id, record["cell_key"]).dir
        if material is not None and cell_dir.is_dir():
            report.cells_checked_for_hidden += 1
            report.findings += _hidden_findings(store, cell_dir, material)
    return report


def _hidden_findings(store, cell_dir: Path, material: HiddenMaterial) -> list[Finding]:
    own = own_work_text(cell_dir)
    findings = []
    for path in produced_files(cell_dir):
        text = readable_text(path)
        if text:
            findings += [Finding(_relative(store, path), f"{kind}: {evidence!r}")
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
    from clawmark.settings import TASKS_CATALOG

    pin = Path(store.sweep_config_path(sweep_id))
    try:
        config = json.loads(pin.read_text())
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


def _sweep_files(store, sweep_id: str, extra_paths) -> list[Path]:
    from clawmark.results.store import ROWS_DIR, SWEEPS_DIR

    roots = [store.artifacts_root / sweep_id, Path(store.root) / ROWS_DIR / sweep_id,
             Path(store.root) / SWEEPS_DIR / sweep_id, *map(Path, extra_paths)]
    files: set[Path] = set()
    for root in roots:
        files.update([root] if root.is_file() else (p for p in root.rglob("*") if p.is_file() and not p.is_symlink()))
    return sorted(files)


def _secrets_in_file(path: Path, secrets: list[Secret]) -> list[Secret]:
    if not secrets:
        return []
    overlap = max(len(s.value.encode()) for s in secrets)
    found: dict[str, Secret] = {}
    tail = b""
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            for secret in secrets_in(tail + chunk, secrets):
                found[secret.name] = secret
            tail = chunk[-overlap:]
    return list(found.values())


def _relative(store, path: Path) -> str:
    for base in (Path(store.root), store.artifacts_root.parent):
        if path.is_relative_to(base):
            return path.relative_to(base).as_posix()
    return str(path)
