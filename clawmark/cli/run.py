"""`clawmark run TASK_ID --claw NAME --model MODEL`: one attempt of either track.

The task id is looked up among the SWE instances (bundled, or `--instances FILE`), then among
the closed-loop tasks. The command starts its own model gateway (the attempt pins its model,
budget and ledger there), runs the attempt and prints its row. Exit codes: 0 the attempt ran
to a row (resolved, unresolved and error rows alike: all are outcomes); 1 bad input.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NoReturn

import typer

ROW_FIELDS = ("task_id", "claw", "model", "seed", "status", "resolved", "resolution", "error_kind",
              "error_message", "cell_key", "attempt_id", "artifacts_dir")
SWEEP_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def run(
    task_id: str = typer.Argument(..., help="SWE instance id or closed-loop task id."),
    claw: str = typer.Option(..., "--claw", help="Claw name: oracle, nop, bare, reference, mini-swe-agent."),
    model: str = typer.Option(..., "--model", help="Model string, e.g. scripted/<cassette> or openai/gpt-5."),
    seed: int = typer.Option(0, "--seed", help="Seed of the attempt (part of the cell identity)."),
    instances: Path | None = typer.Option(None, "--instances", help="SWE instance file (default: bundled)."),
    results: Path | None = typer.Option(None, "--results", help="Result store root (default: settings)."),
    sweep_id: str = typer.Option("adhoc", "--sweep-id", help="Sweep the row is filed under."),
    steps: int = typer.Option(50, "--steps", min=1, help="Claw budget: model calls."),
    seconds: float = typer.Option(3600.0, "--seconds", min=1, help="Claw budget: wall seconds (host deadline)."),
    cost_usd: float = typer.Option(3.0, "--cost-usd", min=0, help="Claw budget: USD (gateway-enforced)."),
    as_json: bool = typer.Option(False, "--json", help="Print the row as JSON instead of a table."),
) -> None:
    """Run one attempt of a task with a claw and a model, and print its result row."""
    from clawmark.claws import claw_names

    if claw not in claw_names():
        _fail(f"--claw: expected one of {', '.join(claw_names())} (got {claw!r})")
    if not SWEEP_RE.match(sweep_id):
        _fail(f"--sweep-id: expected letters, digits, '.', '_' or '-' (got {sweep_id!r})")
    instance = _find_task(task_id, instances)
    budgets = {"steps": steps, "seconds": seconds, "cost_usd": cost_usd}
    row = _run_patch(instance, claw, model, seed, results, sweep_id, budgets)
    _print_row(row, as_json)


def _find_task(task_id: str, instances: Path | None) -> Any:
    from clawmark.catalog import CatalogError, UnknownTask, find_instance
    from clawmark.settings import settings

    path = instances or settings().catalog_dir / "swe" / "instances.jsonl"
    try:
        return find_instance(path, task_id)
    except UnknownTask as exc:
        if _is_closed_loop(task_id):
            _fail(f"{task_id}: closed-loop track not built yet (only patch tasks run for now)")
        _fail(str(exc))
    except CatalogError as exc:
        _fail(str(exc))


def _is_closed_loop(task_id: str) -> bool:
    from clawmark.catalog import CatalogError, load_tasks
    from clawmark.settings import settings

    try:
        return any(t.task_id == task_id for t in load_tasks(settings().catalog_dir / "closed_loop"))
    except (CatalogError, OSError):
        return False


def _run_patch(instance: Any, claw: str, model: str, seed: int, results: Path | None, sweep_id: str,
               budgets: dict[str, float]) -> Any:
    from clawmark.attempts.patch import PatchAttemptConfig, run_patch_attempt
    from clawmark.results import ResultStore
    from clawmark.runtime.engine import docker_client
    from clawmark.runtime.errors import EngineUnavailable
    from clawmark.settings import settings
    from clawmark.sweeps.gateway import sweep_gateway

    try:
        docker_client()  # an engine that is down is bad setup, not an attempt outcome
    except EngineUnavailable as exc:
        _fail(str(exc))
    conf = settings()
    store = ResultStore(results or conf.results_dir)
    config = PatchAttemptConfig(budgets=budgets)
    with sweep_gateway() as server:
        return run_patch_attempt(instance, claw, model, seed, store, sweep_id, server, config=config)


def _print_row(row: Any, as_json: bool) -> None:
    data = row.model_dump(mode="json")
    data["cost_usd"] = row.cost_usd
    if as_json:
        typer.echo(json.dumps(data, indent=2, default=str))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("field", "value", title=f"attempt {row.attempt_id}")
    for name in ROW_FIELDS:
        table.add_row(name, str(data.get(name)))
    executor = data["usage"].get("executor", {})
    table.add_row("executor tokens in/out", f"{executor.get('input_tokens')} / {executor.get('output_tokens')}")
    table.add_row("cost_usd", f"{row.cost_usd:.6f}")
    table.add_row("wall total s", f"{row.wall.total:.1f}")
    Console().print(table)


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)
