"""Turn a sweep spec into cells, and tell which cells still need a run.

The committed row is the only proof a cell is done (the filesystem is the state machine): a
resume skips every cell with a row, clears the artifact folders of cells without one, and never
runs a finished cell twice unless forced. A row that is an error (the claw × model was never
measured) is retried by a later run within a bound (clawmark/sweeps/retry.py); the rerun-failed
deployment and `clawmark sweep rerun-failed` pick such cells up without one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from clawmark.attempts.gateway_link import uses_fallback_price
from clawmark.attempts.patch import (PatchAttemptConfig, claw_image_ref, environment_hash, identity_fields,
                                     model_for_task)
from clawmark.catalog import SweInstance, find_instances, load_instances, load_suite
from clawmark.claws.base import ClawAdapter
from clawmark.claws.profiles import claw_for
from clawmark import PROTOCOL_VERSION
from clawmark.results import AttemptRow, ResultStore
from clawmark.results.identity import cell_key_from_hashes
from clawmark.results.status import Status
from clawmark.sweeps.closed_loop_plan import CLOSED_LOOP, check_role_prices, select_tasks
from clawmark.sweeps.closed_loop_plan import cell_keys as closed_loop_keys
from clawmark.sweeps.retry import Retries, select_retries
from clawmark.sweeps.spec import SweepSpec

# Outcomes that did not measure the claw × model (the infrastructure or clawmark failed): rerun them.
RERUNNABLE_ERROR_KINDS = frozenset({"infra", "harness"})


@dataclass(frozen=True)
class Cell:
    instance_id: str  # the task id of either track (an instance id for patch cells)
    claw: str
    model: str
    seed: int
    cell_key: str
    track: str = "patch"


@dataclass
class SweepPlan:
    spec: SweepSpec
    instances: dict[str, SweInstance]
    cells: list[Cell]
    done: set[str] = field(default_factory=set)
    tasks: dict[str, Any] = field(default_factory=dict)  # closed-loop tasks by id
    retry: set[str] = field(default_factory=set)  # error rows this run runs again (not in `done`)
    spent: set[str] = field(default_factory=set)  # error rows past the retry bound (kept, in `done`)

    @property
    def pending(self) -> list[Cell]:
        return [c for c in self.cells if c.cell_key not in self.done]


def select_instances(spec: SweepSpec) -> list[SweInstance]:
    if spec.instances is None:
        return []
    if spec.tasks or spec.suite:
        return find_instances(spec.instances, spec.tasks or _suite_ids(spec.suite))
    return load_instances(spec.instances)


def _suite_ids(name: str) -> list[str]:
    return list(load_suite(name).tasks)


def cell_key_of(spec: SweepSpec, instance: SweInstance, claw_name: str, model: str, seed: int,
                environment: str | None = None, claw_image: str | None = None) -> str:
    claw, config = claw_for(claw_name, spec.attempt)
    fields = identity_fields(instance, claw, model, seed, spec.sweep_id, config, environment, claw_image)
    return AttemptRow(status="infra_error", **fields).cell_key


def _patch_keys(spec: SweepSpec, instance: SweInstance, claw: ClawAdapter, config: PatchAttemptConfig,
                environment: str, image: str) -> list[tuple[str, int, str]]:
    """(model, seed, key) of one instance × claw. The identity is built once (hashing the instance
    row is the costly part) and only model and seed vary: they do not enter any other field."""
    base = identity_fields(instance, claw, spec.models[0], spec.seeds[0], spec.sweep_id, config, environment, image)
    hashed = {k: base[k] for k in ("track", "task_id", "task_hash", "claw", "claw_version",
                                   "claw_settings_hash", "model_params_hash")}
    return [(model, seed, cell_key_from_hashes(**hashed, model=model, seed=seed, protocol_version=PROTOCOL_VERSION))
            for model, seed in product(spec.models, spec.seeds)]


def plan_sweep(spec: SweepSpec, store: ResultStore, *, force: bool = False, retry_errors: int = 0) -> SweepPlan:
    """All cells of the spec; `done` holds the keys that already have a committed row, except
    error rows with fewer than `retry_errors` retries behind them (`retry`). Raises
    UnpricedModel (before any cell runs) when a model has no price and the spec no fallback."""
    instances = select_instances(spec)
    check_prices(spec, instances)
    environments = {inst.instance_id: environment_hash(inst) for inst in instances}  # once per instance
    claws = {name: claw_for(name, spec.attempt) for name in spec.claws}
    images = {name: claw_image_ref(claw) for name, (claw, _config) in claws.items() if "patch" in claw.tracks}
    cells = [Cell(inst.instance_id, name, model, seed, key)
             for inst, name in product(instances, images)
             for model, seed, key in _patch_keys(spec, inst, *claws[name], environments[inst.instance_id], images[name])]
    tasks = select_tasks(spec.closed_loop) if spec.closed_loop else []
    if tasks:
        check_role_prices(spec, tasks)
        cells += [Cell(*key, track=CLOSED_LOOP) for key in closed_loop_keys(spec, tasks)]
    done = set() if force else store.completed_cells(spec.sweep_id) & {c.cell_key for c in cells}
    retries = select_retries(store, spec.sweep_id, done, retry_errors) if retry_errors and done else Retries()
    return SweepPlan(spec, {i.instance_id: i for i in instances}, cells, done - retries.retry,
                     {t.task_id: t for t in tasks}, retries.retry, retries.spent)


def check_prices(spec: SweepSpec, instances: list[SweInstance]) -> None:
    """Every model a claw of the sweep calls needs a price, or the sweep's fallback price: an
    unpriced call costs NaN and could never reach a cost cap (issue 7 part 4)."""
    spenders = [claw for claw, _config in (claw_for(n, spec.attempt) for n in spec.claws) if claw.calls_model]
    if not spenders:
        return
    for model in sorted({model_for_task(m, i.instance_id) for m in spec.models for i in instances}):
        uses_fallback_price(model, spec.attempt, spenders[0])


def failed_cells(plan: SweepPlan, store: ResultStore, statuses: Iterable[str] | None = None) -> list[Cell]:
    """Cells whose committed row is an infrastructure-side failure, worth running again; with
    `statuses`, the cells whose row has one of those statuses instead (an operator's choice);
    `missing` among them names the planned cells with no row (a sweep killed before them)."""
    chosen = None if statuses is None else _known_statuses(statuses)
    frame = store.read(plan.spec.sweep_id, columns=["cell_key", "error_kind", "status"])
    if frame.empty:
        bad: set[str] = set()
    else:
        picked = frame["error_kind"].isin(RERUNNABLE_ERROR_KINDS) if chosen is None else frame["status"].isin(chosen)
        bad = set(frame.loc[picked, "cell_key"])
    if chosen and Status.MISSING in chosen:
        bad |= {c.cell_key for c in plan.cells} - set(frame["cell_key"] if not frame.empty else ())
    return [c for c in plan.cells if c.cell_key in bad]


def _known_statuses(statuses: Iterable[str]) -> set[str]:
    known = {str(s) for s in Status}
    chosen = {str(s) for s in statuses}
    if unknown := sorted(chosen - known):
        raise ValueError(f"statuses: {', '.join(unknown)} unknown; expected some of {', '.join(sorted(known))}")
    return chosen


def pin_protocol(spec: SweepSpec, store: ResultStore) -> str:
    """Save the sweep's fixed protocol on first run; a resume under another one raises
    `ConfigMismatch` (rows of two protocols must never mix in one sweep). Claws, models and
    seeds may grow between runs: each cell's key already names them. A sweep refused for an
    unpriced model is refused before its protocol is pinned, so adding a fallback price to it
    afterwards is not a protocol change."""
    check_prices(spec, select_instances(spec))
    protocol = {"protocol_version": PROTOCOL_VERSION, "attempt": spec.attempt.model_dump(mode="json")}
    if spec.closed_loop is not None:  # absent for patch-only sweeps, so their pinned hash holds
        # the set-up cache changes how fast, not what is measured: a resume may turn it on or off
        unpinned = {"env_file", "cache_setup", *spec.closed_loop.attempt.later_fields_at_default()}
        protocol["closed_loop"] = spec.closed_loop.model_dump(
            mode="json", exclude={"claws": True, "tasks": True, "suite": True, "judge": True,  # judge: in attempt
                                  "cache_setup": True,
                                  "attempt": unpinned})
    return store.pin_config(spec.sweep_id, protocol)


def plan_cell(spec: SweepSpec, cell: Cell, store: ResultStore) -> SweepPlan:
    """A plan of `cell` alone: the spec narrowed to its task, claw, model and seed, then planned by
    `plan_sweep`, so the key comes from the same code as the whole grid's while a pool cell run
    hashes one task instead of every cell. Raises LookupError when the narrowed spec keys the
    cell differently (the spec, a task or a claw changed since the coordinator planned it)."""
    one = {"claws": [cell.claw], "models": [cell.model], "seeds": [cell.seed], "suite": None}
    if cell.track == CLOSED_LOOP:
        if spec.closed_loop is None:
            raise LookupError(f"sweep {spec.sweep_id}: cell {cell.cell_key} is closed-loop, the spec has no closed_loop")
        part = spec.closed_loop.model_copy(update={"tasks": [cell.instance_id], "claws": [cell.claw], "suite": None})
        narrowed = spec.model_copy(update={**one, "instances": None, "tasks": [], "closed_loop": part})
    else:
        narrowed = spec.model_copy(update={**one, "tasks": [cell.instance_id], "closed_loop": None})
    plan = plan_sweep(narrowed, store, force=True)
    if [c.cell_key for c in plan.cells] != [cell.cell_key]:
        raise LookupError(f"sweep {spec.sweep_id}: no cell {cell.cell_key} ({cell.track} {cell.instance_id} "
                          f"{cell.claw} {cell.model} seed {cell.seed}) in the spec")
    return plan
