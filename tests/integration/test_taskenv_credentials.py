"""Credentials as upstream passes them: each `.privacy` key of a task reaches the executor's
environment from an env file, and nowhere else (the audit of the attempt is clean: not in a
row, an artifact, a transcript or the judges' calls); a task whose key is a placeholder is
refused before anything is provisioned."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig, open_closed_loop_attempt
from clawmark.audit import audit_sweep
from clawmark.catalog import load_task
from clawmark.catalog.task_credentials import user_credentials
from clawmark.cli.main import app
from clawmark.results import Status
from clawmark.sweeps.cell_preflight import refuse_unrunnable
from tests.support.closed_loop_fixtures import (  # noqa: F401
    attempt,
    cassettes,
    copied_task,
    decision,
    gateway,
    store,
    tool_outputs,
)

pytestmark = pytest.mark.docker
TOKEN = "ghp-parity-7d41c9a0b2e35f68"  # long enough for the audit to look for it
PROBE = ('python3 -c "import hashlib, os; v = os.environ.get(\'PARITY_TOKEN\', \'\'); '
         'print(hashlib.sha256(v.encode()).hexdigest())"')


def privacy_task(tmp_path: Path):
    """The fixture task (clawmark's own layout) asking for upstream's rule: its keys in the executor's
    environment (upstream-layout tasks have it by default; test_closed_loop_isolation keeps the default
    of clawmark's own tasks, keys host-side only)."""
    package = copied_task(tmp_path)
    (package / ".privacy").write_text("# names only\nPARITY_TOKEN\n")
    spec = yaml.safe_load((package / "task.yaml").read_text())
    (package / "task.yaml").write_text(yaml.safe_dump({**spec, "executor_credentials": True}))
    return load_task(package)


def test_privacy_keys_reach_the_executor_and_nowhere_else(tmp_path, store, gateway, cassettes):  # noqa: F811
    task = privacy_task(tmp_path)
    env_file = tmp_path / "privacy.local.env"
    env_file.write_text(f"PARITY_TOKEN={TOKEN}\n")
    executor = cassettes("exec-privacy", [
        {"tool_calls": [{"name": "bash", "arguments": {"command": PROBE}}]},
        {"content": "Checked the token."},
    ])
    supervisor = cassettes("sup-privacy", [{"content": decision("fail", "terminal_failure", 0.0)}])
    row = attempt(task, executor, store, gateway, sweep_id="privacy", supervisor_model=supervisor,
                  env_file=env_file)
    assert row.status == Status.FAIL, row.error_message
    assert hashlib.sha256(TOKEN.encode()).hexdigest() in tool_outputs(row, 0)[0]
    without = open_closed_loop_attempt(task, "reference", executor, 0, store, "privacy-none", gateway,
                                       config=ClosedLoopAttemptConfig(supervisor_model=supervisor))
    assert without.fields == open_closed_loop_attempt(  # where the keys live is not part of a cell's identity
        task, "reference", executor, 0, store, "privacy-none", gateway,
        config=ClosedLoopAttemptConfig(supervisor_model=supervisor, env_file=env_file)).fields
    assert refuse_unrunnable(without) and "PARITY_TOKEN (missing)" in without.outcome.error_message
    assert TOKEN not in json.dumps(row.model_dump(mode="json"), default=str)
    report = audit_sweep(store, "privacy", user_credentials(env_file, environ={}), tasks_dir=task.package_dir.parent)
    assert report.files > 10 and report.findings == []


def test_a_placeholder_key_is_refused_before_provisioning(tmp_path):
    task = privacy_task(tmp_path)
    env_file = tmp_path / "privacy.local.env"
    env_file.write_text("PARITY_TOKEN=YOUR_GITHUB_TOKEN\n")
    result = CliRunner().invoke(app, ["run", task.task_id, "--tasks", str(task.package_dir.parent), "--claw",
                                      "reference", "--model", "scripted/cl-fx_101_sum", "--env-file", str(env_file),
                                      "--results", str(tmp_path / "results"), "--json"])
    assert result.exit_code == 1, result.output
    row = json.loads(result.output[:result.output.rindex("}") + 1])
    assert (row["status"], row["failure_reason"]) == ("task_unrunnable", "missing_credentials")
    assert "PARITY_TOKEN (placeholder)" in row["error_message"] and "YOUR_GITHUB" not in result.output
    assert not (Path(row["artifacts_dir"]) / "logs" / "taskenv.json").exists()  # no container was made
