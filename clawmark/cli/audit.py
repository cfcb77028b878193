"""`clawmark audit SWEEP_ID`: scan a finished sweep for leaked secrets and hidden material.

Looks for the values of the provider keys and `.privacy` variables in this environment (and
`--env-file`) in every
artifact, log and row of the sweep (in a store folder or, read through its filesystem, a store
URL such as s3://…), as they are and base64-, percent-, JSON- or hex-encoded (values of 8
characters or more), and for each task's hidden material (rubric lines, reference
contents, gold and test patches) in what the claws and the user simulator produced. Prints one
line per finding (file, what leaked, secrets masked); exit 1 when there is any, 2 on bad input,
including a task whose hidden material is not found (no task tree pinned or given, a tree
without the task): an audit that could not look is never "clean"."""

from __future__ import annotations

from pathlib import Path

import typer


def audit(
    sweep_id: str = typer.Argument(..., help="The sweep to scan."),
    results: str | None = typer.Option(None, "--results", help="Result store: a folder or a filesystem URL "
                                       "(s3://…, any fsspec URL; default: CLAWMARK_RESULTS)."),
    tasks_dir: Path | None = typer.Option(None, "--tasks-dir", help="Closed-loop task tree (default: the sweep's "
                                          "pinned one; required when none is pinned)."),
    instances: Path | None = typer.Option(None, "--instances", help="SWE instances file (default: the bundled one)."),
    also: list[Path] = typer.Option([], "--also", help="More logs to scan for secrets (files or folders)."),
    env_file: Path | None = typer.Option(None, "--env-file", exists=True, dir_okay=False, help="The KEY=VALUE file "
                                         "the sweep's `.privacy` values came from: they are looked for too."),
) -> None:
    """Scan one sweep; exit 1 when anything leaked."""
    from clawmark.audit import AuditIncomplete, audit_sweep
    from clawmark.audit.files import has_sweep
    from clawmark.cli.console import console
    from clawmark.cli.sweep import _store  # the one parser of a --results store, shared with `clawmark sweep`

    store = _store(results)
    if not has_sweep(store, sweep_id):
        typer.echo(f"error: {store.location}: sweep {sweep_id}: a sweep with rows or artifacts in this store", err=True)
        raise typer.Exit(2)
    from clawmark.catalog.task_credentials import user_credentials
    from clawmark.catalog.errors import CatalogError

    try:
        environ = user_credentials(env_file)
    except CatalogError as exc:
        typer.echo(f"error: --env-file: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        report = audit_sweep(store, sweep_id, environ, tasks_dir=tasks_dir, instances=instances, extra_paths=also)
    except AuditIncomplete as exc:
        typer.echo(f"error: audit {sweep_id} cannot check for hidden material: {exc}", err=True)
        raise typer.Exit(2) from None
    out = console()
    for finding in report.findings:
        out.print(f"LEAK {finding.where}: {finding.what}", markup=False, highlight=False)
    verdict = f"{len(report.findings)} finding(s)" if report.findings else "clean"
    out.print(f"audit {sweep_id}: {verdict}; {report.files} files, {report.rows} rows, "
              f"{report.cells_checked_for_hidden} cells checked for hidden material", markup=False)
    if report.findings:
        raise typer.Exit(1)
