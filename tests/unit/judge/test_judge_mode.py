"""The protocol's `closed_loop.judge` (prompt | agent): loaded from a sweep file into the attempt
protocol, a column of every closed-loop row, and part of an agent cell's key (prompt cells keep
the keys they had before the field existed)."""

from __future__ import annotations

import pytest
import yaml

from clawmark.attempts.closed_loop import identity_fields, role_models
from clawmark.catalog import CatalogError, load_tasks
from clawmark.claws import get_claw
from clawmark.results import AttemptRow
from clawmark.results.schema import to_record
from clawmark.sweeps import SweepSpec, load_spec
from clawmark.sweeps.closed_loop_plan import cell_keys

TASK = "en_101_sales_total"
BASE = {"sweep_id": "judged", "instances": None, "claws": ["reference"], "models": ["scripted/x"]}


def _spec(tmp_path, closed_loop: dict, name: str = "sweep.yaml") -> SweepSpec:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({**BASE, "closed_loop": {"tasks": [TASK], **closed_loop}}))
    return load_spec(path)


def _key(spec: SweepSpec) -> str:
    tasks = [t for t in load_tasks(spec.closed_loop.tasks_dir) if t.task_id == TASK]
    return cell_keys(spec, tasks)[0][-1]


def test_the_judge_mode_is_protocol_and_keys_agent_cells(tmp_path):
    default, prompt = _spec(tmp_path, {}, "d.yaml"), _spec(tmp_path, {"judge": "prompt"}, "p.yaml")
    agent = _spec(tmp_path, {"judge": "agent"}, "a.yaml")
    nested = _spec(tmp_path, {"attempt": {"judge": "agent"}}, "n.yaml")
    assert default.closed_loop.attempt.judge == "prompt"
    assert (agent.closed_loop.attempt.judge, nested.closed_loop.attempt.judge) == ("agent", "agent")
    assert _key(default) == _key(prompt) != _key(agent) == _key(nested)
    again = SweepSpec.model_validate(agent.model_dump(mode="json"))  # what the sweep flow receives
    assert again.closed_loop.attempt == agent.closed_loop.attempt

    with pytest.raises(CatalogError, match="judge"):
        _spec(tmp_path, {"judge": "agent", "attempt": {"judge": "prompt"}}, "twice.yaml")
    with pytest.raises(CatalogError, match="judge"):
        _spec(tmp_path, {"judge": "panel"}, "bad.yaml")


def test_every_closed_loop_row_names_its_judge_mode(tmp_path):
    spec = _spec(tmp_path, {"judge": "agent"})
    task = next(t for t in load_tasks(spec.closed_loop.tasks_dir) if t.task_id == TASK)
    config = spec.closed_loop.attempt
    fields = identity_fields(task, get_claw("reference"), "scripted/x", 0, "s", config,
                             role_models(task, "scripted/x", config))
    assert to_record(AttemptRow(status="fail", **fields, judge_mode=config.judge))["judge_mode"] == "agent"
    assert to_record(AttemptRow(status="fail", **fields))["judge_mode"] is None  # old rows: unknown, not prompt
