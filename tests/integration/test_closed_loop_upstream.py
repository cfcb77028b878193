"""Real UniClawBench packages, copied unchanged into ../shared/datasets/uniclawbench-sample, load
and run to a row on scripted models: an offline oneshot installer with a declared skill, a
background FIFO-driven game service, and a Chinese task with a oneshot pip installer and four skills. The
executor only looks around (cl-generic-look) and the supervisor fails it (sup-generic-fail),
so each row is a measured fail with a score of 0 — and the container really had the package."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawmark.results import Status
from tests.support.closed_loop_fixtures import (  # noqa: F401
    attempt,
    cassettes,
    cycle_file,
    gateway,
    store,
    tool_outputs,
    upstream_task,
)

pytestmark = pytest.mark.docker
EXECUTOR, SUPERVISOR = "scripted/cl-generic-look", "scripted/sup-generic-fail"
PACKAGES = [
    ("101_skill_usage", "task_101_03_access_log_regex"),  # oneshot `bash install.sh` (apt-get || true) + skill
    ("103_long_context", "task_103_37_minesweeper_intermediate_play"),  # background service driving FIFOs
    ("201_skill_usage_zh", "task_201_31_postmortem_merge"),  # zh, oneshot pip installer (|| true) + 4 skills
]


@pytest.mark.parametrize("category, task_id", PACKAGES)
def test_upstream_package_runs_to_a_row(category, task_id, store, gateway, cassettes):  # noqa: F811
    task = upstream_task(category, task_id)
    row = attempt(task, EXECUTOR, store, gateway, supervisor_model=SUPERVISOR)
    assert (row.status, row.passed, row.score, row.turns) == (Status.FAIL, False, 0.0, 1), row.error_message
    assert (row.category, row.language, row.runtime_profile) == (category, task.language, "root-least")
    listing = tool_outputs(row, 0)[0]
    assert listing.splitlines()[1] == "root"  # upstream-layout tasks: root, as upstream (caps still dropped)
    for skill in task.skill_dirs:
        assert f" {skill}\n" in listing
    logs = Path(row.artifacts_dir) / "logs"
    for service in task.services:
        assert list(logs.rglob(f"{service.spec.name}*.log")), f"no log of service {service.spec.name}"
    assert cycle_file(row, 0, "results/notes.md").is_file()
    assert json.loads(cycle_file(row, 0, "decision.json").read_text())["decision"]["verdict"] == "fail"


def test_fifo_game_service_is_up_during_the_turn(store, gateway, cassettes):  # noqa: F811
    task = upstream_task(*PACKAGES[1])
    row = attempt(task, EXECUTOR, store, gateway, supervisor_model=SUPERVISOR)
    listing = tool_outputs(row, 0)[0]
    assert "minesweeper_sessions" in listing  # the service made its session folder in results/
    summary = cycle_file(row, 0, "results/minesweeper_sessions/summary.tsv").read_text()
    assert summary.count("attempt_") >= 3 and ".fifo" in summary
