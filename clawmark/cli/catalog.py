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


@app.command("needs")
def needs_cmd(
    path: Path = typer.Argument(..., help="A task tree (either layout) or one task."),
    as_json: bool = typer.Option(False, "--json", help="A JSON list: one object per task."),
    runnable: bool = typer.Option(False, "--runnable", help="Only the ids this machine and your credentials "
                                  "can run, as YAML list items for a sweep's `tasks:`."),
    suite: str | None = typer.Option(None, "--suite", help="Print the suite file of a common subset "
                                     "(ucb-offline, ucb-offline-no-gui) over this tree."),
    env_file: Path | None = typer.Option(None, "--env-file", help="KEY=VALUE file of credentials (as upstream's "
                                         "configs/privacy.local.env), over the environment."),
    web: bool | None = typer.Option(None, "--web/--no-web", help="Does this machine reach the live web? "
                                    "Default: probed (an HTTPS request to public sites, 3 s)."),
    gui: bool = typer.Option(True, "--gui/--no-gui", help="Can this machine run the desktop image?"),
    snapshot: bool = typer.Option(False, "--snapshot", help="Runnable in snapshot mode (`run --snapshot`): "
                                  "tasks with an offline snapshot path need no credentials then."),
) -> None:
    """What each task needs (live web and hosts, credentials and whether you have them, a snapshot
    path, the desktop, outside installers, missing content), and the counts per need × language."""
    import json

    from clawmark.catalog.errors import CatalogError
    from clawmark.catalog.needs import Machine, tree_needs
    from clawmark.catalog.needs_view import SUITE_RULES, counts_lines, counts_table, needs_table, suite_yaml
    from clawmark.cli.console import console

    if suite is not None and suite not in SUITE_RULES:
        typer.echo(f"--suite: expected one of {', '.join(SUITE_RULES)} (got {suite!r})", err=True)
        raise typer.Exit(2)
    try:
        needs = tree_needs(load_tree(path), _credentials(env_file))
    except CatalogError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    machine = Machine(web=reaches_web() if web is None else web, gui=gui, snapshot=snapshot)
    if suite is not None:
        typer.echo(suite_yaml(suite, needs, path.name), nl=False)
    elif runnable:
        ids = [n.task_id for n in needs if n.runnable_on(machine)]
        typer.echo("\n".join(f"- {task_id}" for task_id in ids))
        typer.echo(f"{len(ids)} of {len(needs)} task(s) runnable here (web {'yes' if machine.web else 'no'}, "
                   f"desktop {'yes' if machine.gui else 'no'}{', snapshot mode' if machine.snapshot else ''})", err=True)
    elif as_json:
        typer.echo(json.dumps([n.as_json(machine) for n in needs], indent=1, ensure_ascii=False))
    else:
        console().print(needs_table(needs, machine))
        console().print(counts_table(needs, machine))
        return
    for line in counts_lines(needs, machine) if not runnable and suite is None else ():
        typer.echo(line, err=True)


def load_tree(path: Path) -> list:
    from clawmark.catalog import load_task, load_tasks
    from clawmark.catalog.package import FOLDER_TASK_FILE

    if path.is_file() or (path / FOLDER_TASK_FILE).is_file():
        return [load_task(path)]
    return load_tasks(path)


def _credentials(env_file: Path | None) -> dict[str, str]:
    from clawmark.catalog.task_credentials import user_credentials

    return user_credentials(env_file)


PROBE_URLS = ("https://example.com/", "https://www.wikipedia.org/")


def reaches_web(timeout_s: float = 3.0) -> bool:
    """True when a public site answers HTTPS by name (any status). A bare TCP connect is not
    enough: sandboxes accept connections to public addresses they never forward."""
    import urllib.error
    import urllib.request

    for url in PROBE_URLS:
        try:
            urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout_s).close()
            return True
        except urllib.error.HTTPError:
            return True  # the site answered
        except (OSError, ValueError):
            continue
    return False
