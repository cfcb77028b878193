"""Rich tables of the catalog for `clawmark catalog list` / `suites`."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from clawmark.catalog.package import load_tasks
from clawmark.catalog.suite import INSTANCE_SUFFIXES, load_suite, read_suite, suite_files
from clawmark.catalog.swe import load_instances
from clawmark.settings import settings


def _root(catalog: Path | None) -> Path:
    return catalog or settings().catalog_dir


def catalog_rows(catalog: Path | None, track: str = "all") -> dict[str, tuple[str, ...]]:
    """id -> (track, language, kind, origin) for every closed-loop task and patch instance."""
    root = _root(catalog)
    rows: dict[str, tuple[str, ...]] = {}
    if track in ("all", "closed_loop") and (root / "closed_loop").is_dir():
        for task in load_tasks(root / "closed_loop"):
            rows[task.task_id] = ("closed_loop", task.language, task.spec.category, task.layout)
    if track in ("all", "patch") and (root / "swe").is_dir():
        for file in sorted(p for p in (root / "swe").glob("*") if p.suffix in INSTANCE_SUFFIXES):
            for inst in load_instances(file):
                rows[inst.instance_id] = ("patch", inst.language or "", inst.repo, file.name)
    return rows


def catalog_table(catalog: Path | None, suite: str | None, track: str) -> Table:
    rows = catalog_rows(catalog, track)
    ids = list(rows)
    if suite:
        wanted = load_suite(suite, catalog_dir=catalog)
        ids = [i for i in wanted.tasks if i in rows]
    table = Table(title=f"{len(ids)} task(s)" + (f" in suite {suite}" if suite else ""))
    table.add_column("id", no_wrap=True)
    for column in ("track", "lang", "category / repo", "layout / file"):
        table.add_column(column)
    for task_id in ids:
        table.add_row(task_id, *rows[task_id])
    return table


def suites_table(catalog: Path | None) -> Table:
    table = Table("suite", "track", "tasks", "description")
    for file in suite_files(_root(catalog)):
        suite = read_suite(file)
        table.add_row(suite.name, suite.track, str(len(suite.tasks)), suite.description)
    return table
