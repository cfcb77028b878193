"""`clawmark swe grade`: grade a saved test log against an instance, no Docker.

Exit codes: 0 the log was graded (resolved, unresolved or "no result" alike: all are
outcomes); 1 bad input (instance file, instance id, log file, log parser).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

if TYPE_CHECKING:
    from clawmark.catalog import SweInstance
    from clawmark.swe.log_grading import GradeResult

MAX_LOG_BYTES = 64 * 1024 * 1024


def grade(
    instances: Path = typer.Option(..., "--instances", help="Instance file: JSONL, JSON list or Parquet."),
    instance_id: str = typer.Option(..., "--instance-id", help="The instance the log belongs to."),
    log: Path = typer.Option(..., "--log", help="Saved eval log (test_output.txt) with the markers."),
    as_json: bool = typer.Option(False, "--json", help="Print the grade as JSON instead of a table."),
    nonce: str = typer.Option("", "--nonce", help="For a log of clawmark's own evaluator: the nonce in its "
                              "'>>>>> Start Test Output [NONCE]' line; only that region is read."),
) -> None:
    """Grade a saved eval log by SWE-bench 5.x rules and print the verdict and test lists."""
    from clawmark.swe.log_grading import grade as grade_log
    from clawmark.swe.parsers import LogParserError

    instance = _find_instance(instances, instance_id)
    text = _read_log(log)
    try:
        result = grade_log(instance, text, nonce=nonce or None)
    except LogParserError as exc:
        _fail(f"{instances}: instance {instance_id}: {exc}")
    if as_json:
        typer.echo(json.dumps({"instance_id": instance_id, **result.model_dump(mode="json")}, indent=2))
    else:
        _print_table(instance_id, result)


def _find_instance(path: Path, instance_id: str) -> SweInstance:
    from clawmark.catalog import CatalogError, find_instance

    try:
        return find_instance(path, instance_id)
    except CatalogError as exc:
        _fail(str(exc))


def _read_log(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_LOG_BYTES:
            _fail(f"{path}: log: expected at most {MAX_LOG_BYTES} bytes")
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        _fail(f"{path}: log: expected a readable file ({exc.strerror or exc.__class__.__name__})")


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


def _print_table(instance_id: str, result: GradeResult) -> None:
    from clawmark.cli.console import console as make_console
    from rich.table import Table

    console = make_console()
    exit_code = "" if result.test_exit_code is None else f", test exit code {result.test_exit_code}"
    if result.no_result_reason is not None:
        console.print(f"{instance_id}: [bold yellow]no result[/] ({result.no_result_reason.value}{exit_code})")
        return
    colour = "green" if result.resolved else "red"
    console.print(f"{instance_id}: [bold {colour}]resolved={result.resolved}[/] {result.resolution.swebench}{exit_code}")
    table = Table("list", "test", "outcome")
    for category, lists in result.tests_status.items():
        for outcome in ("success", "failure"):
            for name in lists[outcome]:
                table.add_row(category, name, outcome)
    console.print(table)
