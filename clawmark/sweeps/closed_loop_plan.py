"""The closed-loop cells of a sweep: task packages × claws that run closed-loop × models × seeds.

Keys come from the same identity the attempt commits (`attempts.closed_loop.identity_fields`),
so a planned key and a committed row always agree; the claw's image and the workstation image
are part of it, so an edited recipe re-keys its cells."""

from __future__ import annotations

from itertools import product

from clawmark.attempts.closed_loop import identity_fields, role_models
from clawmark.catalog import ClosedLoopTask, load_suite, load_tasks
from clawmark.claws.profiles import claw_for
from clawmark.gateway.client import default_prices
from clawmark.gateway.prices import require_price
from clawmark.results import AttemptRow
from clawmark.sweeps.spec import ClosedLoopPart, SweepSpec

CLOSED_LOOP = "closed_loop"


def select_tasks(part: ClosedLoopPart) -> list[ClosedLoopTask]:
    tasks = {t.task_id: t for t in load_tasks(part.tasks_dir)}
    wanted = part.tasks or (list(load_suite(part.suite).tasks) if part.suite else sorted(tasks))
    if missing := [t for t in wanted if t not in tasks]:
        raise LookupError(f"{part.tasks_dir}: closed-loop tasks {', '.join(missing)} not found "
                          f"(the tree has {', '.join(sorted(tasks)) or 'none'})")
    return [tasks[t] for t in wanted]


def closed_loop_claws(spec: SweepSpec) -> list[str]:
    part = spec.closed_loop
    names = part.claws if part.claws is not None else spec.claws
    return [n for n in names if CLOSED_LOOP in claw_for(n, part.attempt)[0].tracks]


def cell_keys(spec: SweepSpec, tasks: list[ClosedLoopTask]) -> list[tuple[str, str, str, int, str]]:
    """(task id, claw, model, seed, cell key) of every closed-loop cell."""
    part, out = spec.closed_loop, []
    claws = {n: claw_for(n, part.attempt) for n in closed_loop_claws(spec)}
    for task, name, model, seed in product(tasks, claws, spec.models, spec.seeds):
        claw, config = claws[name]
        fields = identity_fields(task, claw, model, seed, spec.sweep_id, config, role_models(task, model, config))
        out.append((task.task_id, name, model, seed, AttemptRow(status="infra_error", **fields).cell_key))
    return out


def check_role_prices(spec: SweepSpec, tasks: list[ClosedLoopTask]) -> None:
    """With a cost cap, every role model (executor, supervisor, simulator) needs a price."""
    part = spec.closed_loop
    cap = f"attempt cost cap of ${part.attempt.budgets.cost_usd:g}"
    for task, model in product(tasks, spec.models):
        for role_model in sorted(set(role_models(task, model, part.attempt).values())):
            require_price(role_model, default_prices(), None, cap)
