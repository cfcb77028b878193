"""Which tasks a sweep refuses before it starts, and what the executor's environment gets from a
task's `.privacy` names (upstream's `resolve_privacy_env`, snapshot mode included)."""

from __future__ import annotations

from pathlib import Path

from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig
from clawmark.catalog import load_task
from clawmark.catalog.task_credentials import executor_credentials
from clawmark.sweeps.cell_preflight import unrunnable_tasks
from tests.unit.catalog.test_catalog_content import POINTER
from tests.unit.catalog.test_catalog_tasks import make_task

TOKEN = "ghp-real-looking-0123456789"


def _task(root: Path, task_id: str, privacy: str, files: dict[str, str] | None = None):
    return load_task(make_task(root / task_id, spec={"task_id": task_id}, files={".privacy": privacy, **(files or {})}))


def test_tasks_with_unusable_keys_or_missing_content_are_listed_before_the_sweep(tmp_path: Path) -> None:
    tasks = [_task(tmp_path, "has_key", "API_TOKEN\n"), _task(tmp_path, "placeholder", "GH_TOKEN\n"),
             _task(tmp_path, "absent", "OUTLOOK_PASSWORD\n"),
             _task(tmp_path, "pointer", "API_TOKEN\n", {"sources/data.txt": POINTER})]
    env_file = tmp_path / "privacy.local.env"
    env_file.write_text(f"API_TOKEN={TOKEN}\nGH_TOKEN=YOUR_GITHUB_TOKEN\n")
    refused = unrunnable_tasks(tasks, ClosedLoopAttemptConfig(env_file=env_file))
    assert sorted(refused) == ["absent", "placeholder", "pointer"]
    assert "GH_TOKEN (placeholder)" in refused["placeholder"] and "OUTLOOK_PASSWORD (missing)" in refused["absent"]
    assert "Git LFS pointer" in refused["pointer"]
    assert not any("YOUR_GITHUB" in why or TOKEN in why for why in refused.values())


def test_the_executor_gets_every_key_or_in_snapshot_mode_only_the_switch(tmp_path: Path) -> None:
    task = _task(tmp_path, "snap", "SNAPSHOT_MODE\nAPI_TOKEN\n")
    assert executor_credentials(task, {"API_TOKEN": TOKEN}) == ({"API_TOKEN": TOKEN, "SNAPSHOT_MODE": "0"}, {})
    assert executor_credentials(task, {}) == ({"SNAPSHOT_MODE": "0"}, {"API_TOKEN": "missing"})
    assert executor_credentials(task, {}, snapshot=True) == ({"SNAPSHOT_MODE": "1"}, {})
