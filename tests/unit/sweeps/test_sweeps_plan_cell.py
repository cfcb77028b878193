"""A pool cell run plans its one cell (`plan_cell`), not the whole grid: the same key, task and
claw the whole plan gives it, for either track; a cell the spec no longer names is refused."""

from __future__ import annotations

import dataclasses

import pytest

from clawmark.catalog import load_instances
from clawmark.results import ResultStore
from clawmark.settings import TASKS_CATALOG
from clawmark.sweeps import SweepSpec, plan_sweep
from clawmark.sweeps.plan import plan_cell

INSTANCES = TASKS_CATALOG / "swe" / "instances.jsonl"


def _spec(**overrides) -> SweepSpec:
    ids = [i.instance_id for i in load_instances(INSTANCES)][:2]
    fields = {"sweep_id": "one", "instances": INSTANCES, "tasks": ids, "claws": ["oracle", "nop", "reference"],
              "models": ["scripted/demo", "scripted/other"], "seeds": [0, 3],
              "closed_loop": {"tasks": ["en_101_sales_total", "zh_201_invoice_sum"]}}
    return SweepSpec.model_validate({**fields, **overrides})


def test_every_cell_of_a_two_track_grid_plans_alone_to_itself(tmp_path):
    spec, store = _spec(), ResultStore(tmp_path)
    grid = plan_sweep(spec, store)
    assert {c.track for c in grid.cells} == {"patch", "closed_loop"}
    for cell in grid.cells:
        alone = plan_cell(spec, cell, store)
        assert alone.cells == [cell]
        assert alone.pending == [cell]  # committed or not: the cell run decides that itself
        assert alone.spec.sweep_id == spec.sweep_id and alone.spec.attempt == spec.attempt
        if cell.track == "patch":
            assert list(alone.instances) == [cell.instance_id] and alone.tasks == {}
        else:
            assert list(alone.tasks) == [cell.instance_id] and alone.instances == {}
            assert alone.spec.closed_loop.attempt == spec.closed_loop.attempt


def test_a_cell_the_spec_no_longer_keys_that_way_is_refused(tmp_path):
    spec, store = _spec(), ResultStore(tmp_path)
    cell = plan_sweep(spec, store).cells[0]
    with pytest.raises(LookupError, match=f"no cell {cell.cell_key}"):
        changed = spec.attempt.model_copy(update={"model_params": {"temperature": 0.5}})  # a new protocol
        plan_cell(spec.model_copy(update={"attempt": changed}), cell, store)
    with pytest.raises(LookupError, match="no cell 0000"):
        plan_cell(spec, dataclasses.replace(cell, cell_key="0000"), store)


def test_a_closed_loop_cell_of_a_spec_without_closed_loop_is_refused(tmp_path):
    spec, store = _spec(), ResultStore(tmp_path)
    cell = next(c for c in plan_sweep(spec, store).cells if c.track == "closed_loop")
    with pytest.raises(LookupError, match="the spec has no closed_loop"):
        plan_cell(spec.model_copy(update={"closed_loop": None}), cell, store)
