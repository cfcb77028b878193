"""The cost cap of a pool sweep holds across workers: a cell run reads the spend committed in the
shared store (by any worker) before it starts, and refuses once it reaches the cap; a cell that
already has a row is never run again by a resubmitted run."""

from __future__ import annotations

import pytest
import yaml

from clawmark.results import ROLES, ResultStore, RoleUsage
from clawmark.results.synthetic import example_row
from clawmark.settings import TASKS_CATALOG
from clawmark.sweeps import load_spec, plan_sweep

pytestmark = [pytest.mark.slow]


def coordinates(cell) -> dict:
    return {"track": cell.track, "instance_id": cell.instance_id, "claw": cell.claw, "model": cell.model,
            "seed": cell.seed}


def _spent(usd: float) -> dict:
    return {role: RoleUsage(calls=1, cost_usd=usd if role == "executor" else 0.0) for role in ROLES}


@pytest.fixture
def capped(tmp_path):
    path = tmp_path / "cap.yaml"
    path.write_text(yaml.safe_dump({
        "sweep_id": "cap", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
        "tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": ["oracle", "nop"], "models": ["scripted/demo"],
        "max_cost_usd": 0.5}))
    spec, store = load_spec(path), ResultStore(tmp_path / "results")
    return spec, store, plan_sweep(spec, store).cells


def test_a_cell_run_refuses_once_committed_spend_reaches_the_cap(prefect_harness, capped):
    from flows.cell import cell

    spec, store, [first, _] = capped
    spent_elsewhere = example_row(sweep_id="cap", task_id="another-task", usage=_spent(0.6))  # another worker's row
    store.write(spent_elsewhere)
    outcome = cell(spec=spec.model_dump(mode="json"), cell_key=first.cell_key, results=store.location,
                   coordinates=coordinates(first))
    assert outcome == {"cell_key": first.cell_key, "outcome": "over cost cap"}
    assert store.completed_cells("cap") == {spent_elsewhere.cell_key}


def test_a_resubmitted_run_of_a_committed_cell_does_nothing(prefect_harness, capped):
    from flows.cell import cell

    spec, store, [first, _] = capped
    store.write(example_row(sweep_id="cap", task_id="another-task", usage=_spent(0.0)))
    committed = example_row(sweep_id="cap", usage=_spent(0.0))
    store.write(committed)
    outcome = cell(spec=spec.model_dump(mode="json"), cell_key=committed.cell_key, results=store.location,
                   coordinates=coordinates(first))
    assert outcome == {"cell_key": committed.cell_key, "outcome": "already committed"}
