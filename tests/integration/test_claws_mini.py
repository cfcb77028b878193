"""mini-swe-agent, the real PyPI package, beyond the conformance kit (tests/claws), which checks its
patch, usage and follow-up turn: an image of another language, and its own step limit."""

from __future__ import annotations

import json

import pytest

from clawmark.results import Status
from tests.support.attempt_fixtures import INI, attempt, gateway, store  # noqa: F401

pytestmark = pytest.mark.docker


def test_mini_swe_agent_runs_in_an_image_of_another_language(store, gateway):  # noqa: F811
    go_instance = "clawmark-fixtures__lrucache-go-1"  # Go image: the venv rides on the base python3
    row = attempt(go_instance, "mini-swe-agent", f"scripted/mini-{go_instance}", store, gateway)
    assert (row.status, row.resolved) == (Status.RESOLVED, True), row.error_message
    traj = json.loads((store.layout(row.sweep_id, row.cell_key).transcript / "traj.json").read_text())
    assert "build-ok" in json.dumps(traj["messages"])


def test_mini_swe_agent_step_limit_is_typed_and_still_graded(store, gateway):  # noqa: F811
    from clawmark.claws import Budgets

    row = attempt(INI, "mini-swe-agent", f"scripted/mini-{INI}", store, gateway, budgets=Budgets(steps=1))
    turn = json.loads((store.layout(row.sweep_id, row.cell_key).logs / "turn-0.json").read_text())
    assert (turn["exit_status"], turn["finish_reason"]) == ("LimitsExceeded", "limit")
    assert (row.status, row.resolved) == (Status.EMPTY_PATCH, False)  # one grep, no edit yet
