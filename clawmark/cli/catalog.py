"""`clawmark catalog ...` commands: validate task packages, instance files and suites; list tasks."""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(no_args_is_help=True)


@app.command("validate")
def validate_cmd(
    paths: list[Path] = typer.Argument(..., help="Task packages, task trees, instance files, suites."),
    strict: bool = typer.Option(False, "--strict", help="Missing content (Git LFS pointers, empty or "
                                "mislabelled files, absent declared sources) is an error, not a warning."),
) -> None:
    """Check every path; print one line per problem (`FILE: FIELD: expected ...`), exit 1 if any.

    Missing content is reported per file with its fix (`git lfs pull`): a warning (exit 0), or a
    problem with --strict."""
    from clawmark.catalog.validate import validate_paths

    report = validate_paths(paths, strict=strict)
    for line in report.tasks:
        typer.echo(f"ok  {line}")
    for line in report.problems:
        typer.echo(line)
    for line in report.warnings:
        typer.echo(f"warning: {line}", err=True)
    typer.echo(report.summary(), err=not report.ok)
    if not report.ok:
        raise typer.Exit(1)


@app.command("list")
def list_cmd(
    suite: str | None = typer.Option(None, "--suite", "-s", help="Only the tasks of this suite, in its order."),
    track: str = typer.Option("all", "--track", "-t", help="closed_loop, patch or all."),
    catalog: Path | None = typer.Option(None, "--catalog", help="Catalog root (default: CLAWMARK_CATALOG)."),
) -> None:
    """Show the catalog's closed-loop tasks and patch instances as a table."""
    from clawmark.cli.console import console

    from clawmark.catalog.errors import CatalogError
    from clawmark.catalog.listing import catalog_table

    if track not in ("all", "closed_loop", "patch"):
        typer.echo(f"--track: expected closed_loop, patch or all (got {track!r})", err=True)
        raise typer.Exit(2)
    try:
        table = catalog_table(catalog, suite, track)
    except CatalogError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    console().print(table)


@app.command("suites")
def suites_cmd(
    catalog: Path | None = typer.Option(None, "--catalog", help="Catalog root (default: CLAWMARK_CATALOG)."),
) -> None:
    """Show the suites of the catalog (name, track, size, description)."""
    from clawmark.cli.console import console

    from clawmark.catalog.errors import CatalogError
    from clawmark.catalog.listing import suites_table

    try:
        console().print(suites_table(catalog))
    except CatalogError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
