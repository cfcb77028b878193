"""`clawmark run TASK_ID --claw NAME --model MODEL`: one attempt of either track.

The task id is looked up among the closed-loop tasks of `--tasks DIR` when given, then among
the SWE instances (bundled, or `--instances FILE`), then among the bundled closed-loop tasks.
The command starts its own model gateway (the attempt pins its models, budget and ledger
there), runs the attempt and prints its row. Model strings may name a per-task family with
`{task_id}` (e.g. `scripted/cl-{task_id}`); a scripted executor's supervisor and simulator
default to `scripted/sup-{task_id}` and `scripted/sim-{task_id}`. `--results` takes a folder or a
store URL as `clawmark sweep` does: on a remote store the artifacts are staged locally while the
attempt runs and uploaded beside the row at commit. Exit codes: 0 the attempt ran to a row (pass,
fail and error rows alike: all are outcomes); 1 bad input; 2 a store URL no filesystem serves.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from clawmark.claws.base import Budgets
from clawmark.results.outcome import best_turn_of_row

if TYPE_CHECKING:
    from clawmark.catalog import ClosedLoopTask, SweInstance
    from clawmark.claws.profiles import ProfileUse
    from clawmark.results import AttemptRow, ResultStore

ROW_FIELDS = ("task_id", "claw", "model", "seed", "status", "resolved", "resolution", "error_kind",
              "error_message", "cell_key", "attempt_id", "artifacts_dir")
CLOSED_LOOP_FIELDS = ("task_id", "claw", "model", "seed", "status", "passed", "score", "threshold", "turns",
                      "followups_used", "best_turn", "turn_scores", "checks_passed", "checks_total",
                      "leak_flags", "failure_reason", "error_kind", "error_message", "network_policy",
                      "snapshot_mode", "runtime_profile", "judge_mode", "web_hits", "web_misses", "cell_key", "attempt_id", "artifacts_dir")
OPTION_OF = {"network_policy": "--network", "supervisor_model": "--supervisor-model",
             "simulator_model": "--simulator-model", "image": "--image", "snapshot": "--snapshot",
             "web": "--web", "env_file": "--env-file", "executor": "--executor", "judge": "--judge"}
SWEEP_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def run(
    task_id: str = typer.Argument(..., help="SWE instance id or closed-loop task id."),
    claw: str = typer.Option(..., "--claw", help="Claw name (`clawmark claws list` shows every claw and the tracks it runs)."),
    model: str = typer.Option(..., "--model", help="Model string, e.g. scripted/<cassette> or openai/gpt-5."),
    seed: int = typer.Option(0, "--seed", help="Seed of the attempt (part of the cell identity)."),
    instances: Path | None = typer.Option(None, "--instances", help="SWE instance file (default: bundled)."),
    tasks: Path | None = typer.Option(None, "--tasks", help="Closed-loop task tree, either layout (default: bundled)."),
    supervisor_model: str | None = typer.Option(None, "--supervisor-model", help="Closed loop: supervisor model."),
    simulator_model: str | None = typer.Option(None, "--simulator-model", help="Closed loop: user simulator model."),
    network: str = typer.Option("full", "--network", help="Closed loop: none, registries-only or full."),
    snapshot: bool = typer.Option(False, "--snapshot", help="Closed loop: run the task's offline snapshot text."),
    image: str | None = typer.Option(None, "--image", help="Closed loop: task container image (default: workstation)."),
    results: str | None = typer.Option(None, "--results", help="Result store: a folder or a filesystem URL "
                                       "(s3://…, any fsspec URL; default: CLAWMARK_RESULTS)."),
    sweep_id: str = typer.Option("adhoc", "--sweep-id", help="Sweep the row is filed under."),
    steps: int = typer.Option(Budgets.model_fields["steps"].default, "--steps", min=1,
                              help="Claw budget: model calls per turn."),
    seconds: float = typer.Option(3600.0, "--seconds", min=1, help="Claw budget: wall seconds (host deadline)."),
    cost_usd: float = typer.Option(Budgets.model_fields["cost_usd"].default, "--cost-usd", min=0,
                                   help="Claw budget: USD (gateway-enforced)."),
    as_json: bool = typer.Option(False, "--json", help="Print the row as JSON instead of a table."),
    web: str | None = typer.Option(None, "--web", help="Closed loop: web proxy mode live, record, replay or "
                                   "replay-or-live (clawmark/webproxy; default: no proxy)."),
    web_rules: Path | None = typer.Option(None, "--web-rules", help="Closed loop: YAML of block rules "
                                          "(`block: [{id, methods, url}]`) added to the task's own."),
    executor: str = typer.Option("auto", "--executor", help="Closed loop: who the executor is in its container "
                                 "(capabilities dropped, no-new-privileges either way): root, user (uid 1000), or "
                                 "auto = root for upstream-layout tasks, as upstream's runner."),
    judge: str = typer.Option("prompt", "--judge", help="Closed loop: prompt (one model call per judge role) or "
                              "agent (each role runs the Codex CLI in a judge container reaching only the gateway)."),
    env_file: Path | None = typer.Option(None, "--env-file", exists=True, dir_okay=False, help="Closed loop: "
                                         "KEY=VALUE file of the task's `.privacy` values (over the environment); "
                                         "they reach the executor's environment only."),
    profile: str = typer.Option("clawmark", "--profile", help="Protocol profile: clawmark, ucb-paper or csb-paper "
                                "(the claw's version, prompt, limits and settings as that paper ran it; its limits "
                                "replace --steps/--seconds/--cost-usd where it fixes them)."),
    checkout: Path | None = typer.Option(None, "--checkout", exists=True, file_okay=False, help="The upstream "
                                         "checkout the profile reads its prompt files from (csb-paper)."),
) -> None:
    """Run one attempt of a task with a claw and a model, and print its result row."""
    from clawmark.claws import claw_names

    if claw not in claw_names():
        _fail(f"--claw: expected one of {', '.join(claw_names())} (got {claw!r})")
    if not SWEEP_RE.match(sweep_id):
        _fail(f"--sweep-id: expected letters, digits, '.', '_' or '-' (got {sweep_id!r})")
    budgets = {"steps": steps, "seconds": seconds, "cost_usd": cost_usd}
    use = _profile_use(profile, checkout, claw)
    _preflight([model, supervisor_model or "", simulator_model or ""])
    from clawmark.cli.sweep import _store  # the one parser of a --results store, shared with `clawmark sweep`

    store = _store(results)  # a URL no filesystem serves fails here, before anything starts
    task = _find_closed_loop(task_id, tasks) if tasks is not None else None
    if task is None:
        instance = _find_task(task_id, instances, tasks)
        if not hasattr(instance, "instance_id"):
            task = instance
    if task is not None:
        closed = {"supervisor_model": supervisor_model, "simulator_model": simulator_model,
                  "network_policy": network, "snapshot": snapshot, "image": image, "env_file": env_file,
                  "executor": executor, "judge": judge, "profile": use}
        if web is not None or web_rules is not None:
            closed["web"] = {"mode": web or "live", "block": _web_rules(web_rules)}
        row = _run_closed_loop(task, claw, model, seed, store, sweep_id, budgets, closed)
        _print_row(row, as_json, CLOSED_LOOP_FIELDS)
        if row.status == "task_unrunnable":
            _fail(f"{task.task_id}: {row.error_message}")
        return
    row = _run_patch(instance, claw, model, seed, store, sweep_id, budgets, use)
    _print_row(row, as_json)


def _profile_use(name: str, checkout: Path | None, claw: str) -> ProfileUse:
    """--profile and --checkout as the attempt config's `profile`; a bad one (unknown, not running
    this claw, its checkout missing) fails before anything runs."""
    from clawmark.claws import Budgets
    from clawmark.claws.profiles import ProfileError, ProfileSource, ProfileUse, load_profile, profiled_claw

    try:
        key = load_profile(name).checkout_key
        if checkout is not None and key is None:
            _fail(f"--checkout: profile {name!r} reads no upstream checkout")
        use = ProfileUse(name=name, sources={key: ProfileSource(checkout=checkout)} if checkout and key else {})
        profiled_claw(claw, {}, Budgets(), use)
    except ProfileError as exc:
        _fail(f"--profile {name}: {exc} (here: --checkout PATH)")
    return use


def _web_rules(path: Path | None) -> list:
    from clawmark.catalog import CatalogError
    from clawmark.webproxy import load_rules

    try:
        return load_rules(path) if path else []
    except (CatalogError, OSError) as exc:
        _fail(f"--web-rules: {exc}")


def _find_task(task_id: str, instances: Path | None, tasks: Path | None) -> SweInstance | ClosedLoopTask:
    """A SWE instance, else a bundled closed-loop task (when --tasks did not already say)."""
    from clawmark.catalog import CatalogError, UnknownTask, find_instance
    from clawmark.settings import settings

    path = instances or settings().catalog_dir / "swe" / "instances.jsonl"
    try:
        return find_instance(path, task_id)
    except UnknownTask as exc:
        task = None if tasks is not None else _find_closed_loop(task_id, settings().catalog_dir / "closed_loop")
        if task is None:
            _fail(str(exc) if tasks is None else f"{task_id}: not in {tasks} nor among the SWE instances {path}")
        return task
    except CatalogError as exc:
        _fail(str(exc))


def _find_closed_loop(task_id: str, root: Path) -> ClosedLoopTask | None:
    """The task `task_id` of a tree: files named after it are loaded first, then the whole tree."""
    from clawmark.catalog import CatalogError, load_task, load_tasks
    from clawmark.catalog.package import find_task_files

    try:
        files = find_task_files(root)
        named = [f for f in files if task_id in (f.stem, f.parent.name)]
        for file in named:
            if (task := load_task(file)).task_id == task_id:
                return task
        return next((t for t in load_tasks(root) if t.task_id == task_id), None)
    except CatalogError as exc:
        _fail(str(exc))


def _run_closed_loop(task: ClosedLoopTask, claw: str, model: str, seed: int, store: ResultStore, sweep_id: str,
                     budgets: dict[str, float], closed: dict[str, Any]) -> AttemptRow:
    from pydantic import ValidationError

    from clawmark.attempts.closed_loop import (ClosedLoopAttemptConfig, open_closed_loop_attempt,
                                               run_closed_loop_attempt)
    from clawmark.attempts.closed_loop_stages import CLOSED_LOOP_STAGES
    from clawmark.attempts.stages import run_stages
    from clawmark.catalog.errors import CatalogError, from_validation
    from clawmark.sweeps.shared_gateway import sweep_gateway
    from clawmark.sweeps.cell_preflight import refuse_unrunnable, unrunnable_reason

    try:
        config = ClosedLoopAttemptConfig(budgets=budgets, **closed)
    except ValidationError as exc:
        field = str(exc.errors()[0]["loc"][0])
        expected = str(from_validation(Path("run"), exc)).split(": ", 2)[-1]  # "run: FIELD: expected ..."
        _fail(f"{OPTION_OF.get(field, field)}: {expected}")
    try:
        refused = unrunnable_reason(task, config)
    except CatalogError as exc:  # an unreadable --env-file
        _fail(f"--env-file: {exc}")
    if refused:  # missing content or credentials: refused before provisioning, no engine, no gateway, only its row
        attempt = open_closed_loop_attempt(task, claw, model, seed, store, sweep_id, None, config=config)
        refuse_unrunnable(attempt)
        return run_stages(attempt, CLOSED_LOOP_STAGES)
    _engine_or_fail()
    with sweep_gateway() as server:
        return run_closed_loop_attempt(task, claw, model, seed, store, sweep_id, server, config=config)


def _engine_or_fail() -> None:
    from clawmark.runtime.engine import docker_client
    from clawmark.runtime.errors import EngineUnavailable

    try:
        docker_client()  # an engine that is down is bad setup, not an attempt outcome
    except EngineUnavailable as exc:
        _fail(str(exc))


def _run_patch(instance: SweInstance, claw: str, model: str, seed: int, store: ResultStore, sweep_id: str,
               budgets: dict[str, float], profile: ProfileUse) -> AttemptRow:
    from clawmark.attempts.patch import PatchAttemptConfig, run_patch_attempt
    from clawmark.sweeps.shared_gateway import sweep_gateway

    _engine_or_fail()
    config = PatchAttemptConfig(budgets=budgets, profile=profile)
    with sweep_gateway() as server:
        return run_patch_attempt(instance, claw, model, seed, store, sweep_id, server, config=config)


def _print_row(row: AttemptRow, as_json: bool, fields: tuple[str, ...] = ROW_FIELDS) -> None:
    data = row.model_dump(mode="json")
    data["cost_usd"] = row.cost_usd
    if as_json:
        typer.echo(json.dumps(data, indent=2, default=str))
        return
    from clawmark.cli.console import console
    from rich.table import Table

    table = Table("field", "value", title=f"attempt {row.attempt_id}")
    for name in fields:
        table.add_row(name, str(_for_people(name, data.get(name))))
    roles = ("executor", "supervisor", "user_simulator") if fields is CLOSED_LOOP_FIELDS else ("executor",)
    for role in roles:
        usage = data["usage"].get(role, {})
        table.add_row(f"{role} tokens in/out", f"{usage.get('input_tokens')} / {usage.get('output_tokens')}")
    table.add_row("cost_usd", f"{row.cost_usd:.6f}")
    table.add_row("wall total s", f"{row.wall.total:.1f}")
    console().print(table)


def _for_people(field: str, value: object) -> object:
    """A row value as the table shows it: turns count from 1, as `clawmark show` counts them
    (--json prints the row as stored, its best_turn column 0-based)."""
    return best_turn_of_row(value) if field == "best_turn" and isinstance(value, int) else value


def _preflight(models: list[str]) -> None:
    """A provider model without its key fails here, before a container is provisioned."""
    from clawmark.gateway.provider_preflight import MissingProviderKey, require_keys

    try:
        require_keys(m for m in models if m)
    except MissingProviderKey as exc:
        _fail(str(exc))


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)
