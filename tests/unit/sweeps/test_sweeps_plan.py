"""Sweep planning: the cells of a spec, what resume skips, what rerun-failed picks, bad specs."""

from __future__ import annotations

import pytest

from clawmark.catalog import CatalogError, load_instances
from clawmark.catalog.errors import UnknownTask
from clawmark.results import AttemptRow, ResultStore
from clawmark.settings import TASKS_CATALOG
from clawmark.sweeps import SweepSpec, load_spec, plan_sweep
from clawmark.sweeps.plan import failed_cells

INSTANCES = TASKS_CATALOG / "swe" / "instances.jsonl"


def _spec(**overrides) -> SweepSpec:
    ids = [i.instance_id for i in load_instances(INSTANCES)][:2]
    fields = {"sweep_id": "s1", "instances": INSTANCES, "tasks": ids, "claws": ["oracle", "nop"],
              "models": ["scripted/demo"], "seeds": [0, 1]}
    return SweepSpec(**{**fields, **overrides})


def _commit(store: ResultStore, spec: SweepSpec, cell, status: str, cost: float = 0.01) -> AttemptRow:
    from clawmark.attempts.patch import identity_fields
    from clawmark.claws import get_claw

    instance = next(i for i in load_instances(INSTANCES) if i.instance_id == cell.instance_id)
    fields = identity_fields(instance, get_claw(cell.claw), cell.model, cell.seed, spec.sweep_id, spec.attempt)
    usage = {"executor": {"input_tokens": 10, "output_tokens": 5, "cost_usd": cost, "calls": 1}}
    row = AttemptRow.from_usage(usage, status=status, **fields)
    store.write(row)
    return row


def test_plan_is_the_cross_product_with_stable_distinct_keys(tmp_path):
    store = ResultStore(tmp_path)
    plan = plan_sweep(_spec(), store)
    assert len(plan.cells) == 2 * 2 * 1 * 2
    assert len({c.cell_key for c in plan.cells}) == len(plan.cells)
    assert [c.cell_key for c in plan_sweep(_spec(), store).cells] == [c.cell_key for c in plan.cells]
    assert plan.pending == plan.cells


def test_committed_cells_are_skipped_and_their_keys_match_the_attempts(tmp_path):
    store = ResultStore(tmp_path)
    spec = _spec()
    first = plan_sweep(spec, store).cells[0]
    row = _commit(store, spec, first, "resolved")
    assert row.cell_key == first.cell_key
    plan = plan_sweep(spec, store)
    assert plan.done == {first.cell_key}
    assert first not in plan.pending and len(plan.pending) == len(plan.cells) - 1
    assert len(plan_sweep(spec, store, force=True).pending) == len(plan.cells)


def test_failed_cells_are_infra_errors_not_model_failures(tmp_path):
    store = ResultStore(tmp_path)
    spec = _spec()
    cells = plan_sweep(spec, store).cells
    _commit(store, spec, cells[0], "infra_error")
    _commit(store, spec, cells[1], "unresolved")
    _commit(store, spec, cells[2], "apply_failed")
    assert [c.cell_key for c in failed_cells(plan_sweep(spec, store), store)] == [cells[0].cell_key]


def test_failed_cells_by_named_statuses(tmp_path):
    store = ResultStore(tmp_path)
    spec = _spec()
    cells = plan_sweep(spec, store).cells
    _commit(store, spec, cells[0], "infra_error")
    _commit(store, spec, cells[1], "unresolved")
    _commit(store, spec, cells[2], "apply_failed")
    chosen = failed_cells(plan_sweep(spec, store), store, statuses=["unresolved", "apply_failed"])
    assert [c.cell_key for c in chosen] == [cells[1].cell_key, cells[2].cell_key]
    with pytest.raises(ValueError, match="statuses: unresolvd unknown; expected some of"):
        failed_cells(plan_sweep(spec, store), store, statuses=["unresolvd"])


def test_missing_names_the_planned_cells_without_a_row(tmp_path):
    store = ResultStore(tmp_path)
    spec = _spec()
    cells = plan_sweep(spec, store).cells
    assert failed_cells(plan_sweep(spec, store), store, statuses=["missing"]) == cells  # nothing committed yet
    _commit(store, spec, cells[0], "infra_error")
    _commit(store, spec, cells[1], "unresolved")
    chosen = failed_cells(plan_sweep(spec, store), store, statuses=["missing", "unresolved"])
    assert [c.cell_key for c in chosen] == [c.cell_key for c in cells[1:]]


def test_unknown_task_id_names_the_file_and_field(tmp_path):
    with pytest.raises(UnknownTask) as err:
        plan_sweep(_spec(tasks=["no-such-instance"]), ResultStore(tmp_path))
    assert "instance_id" in str(err.value) and "'no-such-instance'" in str(err.value)


@pytest.mark.parametrize("body, field", [
    ("sweep_id: s\nclaws: [oracle]\n", "models"),
    ("sweep_id: 'bad id'\nclaws: [oracle]\nmodels: [m]\n", "sweep_id"),
    ("sweep_id: s\nclaws: [oracle, oracle]\nmodels: [m]\n", "claws"),
    ("sweep_id: s\nclaws: [oracle]\nmodels: [m]\nmax_paralel: 3\n", "max_paralel"),
    ("sweep_id: [unclosed\n", "<file>"),
])
def test_bad_sweep_files_name_file_and_field(tmp_path, body, field):
    path = tmp_path / "sweep.yaml"
    path.write_text(body)
    with pytest.raises(CatalogError) as err:
        load_spec(path)
    assert str(path) in str(err.value) and f": {field}" in str(err.value)


def test_bundled_sweep_files_load():
    for path in (TASKS_CATALOG / "sweeps").glob("*.yaml"):
        spec = load_spec(path)
        assert spec.instances.exists(), path


def test_a_resume_under_another_protocol_is_refused(tmp_path):
    from clawmark.results import ConfigMismatch
    from clawmark.sweeps.plan import pin_protocol

    store = ResultStore(tmp_path)
    first = pin_protocol(_spec(), store)
    assert pin_protocol(_spec(claws=["oracle", "nop", "reference"]), store) == first
    slower = _spec().attempt.model_copy(update={"eval_timeout_s": 99.0})
    with pytest.raises(ConfigMismatch):
        pin_protocol(_spec(attempt=slower), store)


def test_planned_keys_equal_the_attempts_own_identity_for_every_claw_model_and_seed(tmp_path):
    """The planner builds one identity per instance × claw and varies model and seed; each key
    must still be exactly the one the attempt commits (`cell_key_of` builds it in full)."""
    from clawmark.results import ResultStore
    from clawmark.sweeps import SweepSpec, plan_sweep
    from clawmark.sweeps.plan import cell_key_of, select_instances

    spec = SweepSpec(sweep_id="keys", claws=["oracle", "reference", "mini-swe-agent"],
                     models=["scripted/a", "scripted/ref-{task_id}"], seeds=[0, 1, 2])
    plan = plan_sweep(spec, ResultStore(tmp_path))
    instances = {i.instance_id: i for i in select_instances(spec)}
    assert len(plan.cells) == len(instances) * 3 * 2 * 3 == len({c.cell_key for c in plan.cells})
    for cell in plan.cells:
        assert cell.cell_key == cell_key_of(spec, instances[cell.instance_id], cell.claw, cell.model, cell.seed)
