"""The executor's runtime profile: root (inside the least-privilege container) for upstream-layout
tasks by default, as upstream's runner; the unprivileged user for clawmark's own. The profile is
part of the cell key, and a user-profile cell keeps the key it had before profiles existed."""

from __future__ import annotations

from pathlib import Path

from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig, identity_fields, role_models
from clawmark.catalog import load_task
from clawmark.claws import get_claw
from clawmark.results import AttemptRow
from clawmark.taskenv.config import TaskEnvConfig, runtime_profile
from tests.unit.catalog.test_catalog_tasks import make_task

MODEL = "scripted/cl-generic-look"


def _key(task, executor: str) -> str:
    config = ClosedLoopAttemptConfig(executor=executor)
    fields = identity_fields(task, get_claw("reference"), MODEL, 0, "s", config, role_models(task, MODEL, config))
    return AttemptRow(status="infra_error", **fields).cell_key


def test_upstream_tasks_run_as_root_and_the_profile_keys_the_cell(tmp_path: Path) -> None:
    upstream, own = load_task(make_task(tmp_path / "u", layout="uniclaw")), load_task(make_task(tmp_path / "f"))
    assert (runtime_profile(upstream), runtime_profile(own)) == ("root-least", "user-least")
    assert runtime_profile(own, "root") == "root-least" and runtime_profile(upstream, "user") == "user-least"
    assert (TaskEnvConfig().for_task(upstream).executor_user, TaskEnvConfig().for_task(own).executor_user) == (
        "0:0", "1000:1000")
    assert _key(upstream, "auto") == _key(upstream, "root") != _key(upstream, "user")
    assert _key(own, "auto") == _key(own, "user") != _key(own, "root")
