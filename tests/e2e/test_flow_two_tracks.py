"""One sweep over both tracks for real: patch cells and closed-loop cells planned together, each
claw only on the tracks it runs (oracle and nop never get a closed-loop cell), committed keys
equal to planned keys, and a rerun that reuses every cell."""

from __future__ import annotations

import pytest

from clawmark.results import ResultStore
from clawmark.settings import TASKS_CATALOG
from clawmark.sweeps import SweepSpec, plan_sweep

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def _spec() -> dict:
    return {"sweep_id": "two-tracks", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
            "tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": ["oracle", "reference"],
            "models": ["scripted/cl-{task_id}"], "max_parallel": 2,
            "closed_loop": {"tasks": ["en_101_sales_total", "zh_201_invoice_sum"]}}


def test_one_sweep_runs_both_tracks_and_resumes(docker_client, prefect_harness, tmp_path):
    from flows.sweep import sweep

    results = str(tmp_path / "results")
    plan = plan_sweep(SweepSpec.model_validate(_spec()), ResultStore(results))
    planned = {(c.track, c.instance_id, c.claw) for c in plan.cells}
    assert planned == {("patch", "clawmark-fixtures__iniparse-py-1", "oracle"),
                       ("patch", "clawmark-fixtures__iniparse-py-1", "reference"),
                       ("closed_loop", "en_101_sales_total", "reference"),
                       ("closed_loop", "zh_201_invoice_sum", "reference")}
    first = sweep(spec=_spec(), results_dir=results)
    rows = ResultStore(results).read("two-tracks").set_index("task_id")
    assert first["ran"] == 4 and set(rows["cell_key"]) == {c.cell_key for c in plan.cells}
    assert rows.loc["en_101_sales_total", "status"] == "pass" and rows.loc["en_101_sales_total", "turns"] == 1
    assert rows.loc["zh_201_invoice_sum", "status"] == "pass" and rows.loc["zh_201_invoice_sum", "turns"] == 2
    assert rows.loc["zh_201_invoice_sum", "supervisor_calls"] == 2  # judged after each turn
    again = sweep(spec=_spec(), results_dir=results)
    assert (again["ran"], again["skipped"]) == (0, 4)
