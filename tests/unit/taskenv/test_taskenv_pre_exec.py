"""pre_exec on the host: only the task's .privacy variables (plus harmless basics) reach the
script, failures are typed with their log, and one task's runs never overlap."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import yaml

from clawmark.catalog.package import load_task
from clawmark.taskenv import PreExecFailed
from clawmark.taskenv.pre_exec import BASIC_VARS, run_pre_exec

DUMP_ENV = """import json, os, pathlib
out = pathlib.Path(os.environ["CLAWBENCH_TASK_ID"] + ".env.json")
pathlib.Path("ops", out.name).write_text(json.dumps(dict(os.environ)))
"""
RECORD_SPAN = """import os, pathlib, time
log = pathlib.Path("ops/spans.log")
with log.open("a") as f: f.write("start\\n")
time.sleep(0.3)
with log.open("a") as f: f.write("end\\n")
"""


def package(tmp_path: Path, script: str, privacy: str = "", **spec) -> Path:
    folder = tmp_path / "pre_task"
    (folder / "references").mkdir(parents=True)
    (folder / "references" / "eval_rule.md").write_text("# rule\n\n## 5. Checkpoint rubric\n- **1.0 — All.** x\n")
    (folder / "ops").mkdir()
    (folder / "ops" / "prep.py").write_text(script)
    if privacy:
        (folder / ".privacy").write_text(privacy)
    data = {"task_id": "pre_task", "category": "101_skill_usage", "task": "t",
            "references": ["references/eval_rule.md"], "pre_exec": ["ops/prep.py"], **spec}
    (folder / "task.yaml").write_text(yaml.safe_dump(data))
    return folder


def test_script_sees_privacy_vars_and_no_other_secret(tmp_path):
    task = load_task(package(tmp_path, DUMP_ENV, privacy="NOTION_TOKEN\n# comment\nTRELLO_KEY\n"))
    runner_env = {"PATH": "/usr/bin:/bin", "HOME": "/root", "NOTION_TOKEN": "secret-notion",
                  "TRELLO_KEY": "secret-trello", "OPENAI_API_KEY": "sk-runner", "CLAWMARK_GATEWAY_TOKEN": "gw"}
    run_pre_exec(task, tmp_path / "logs", timeout_s=60, environ=runner_env)
    seen = json.loads((task.package_dir / "ops" / "pre_task.env.json").read_text())
    assert seen["NOTION_TOKEN"] == "secret-notion" and seen["TRELLO_KEY"] == "secret-trello"
    assert "OPENAI_API_KEY" not in seen and "CLAWMARK_GATEWAY_TOKEN" not in seen
    assert "SNAPSHOT_MODE" not in seen  # not snapshot mode
    extra = set(seen) - set(BASIC_VARS) - {"NOTION_TOKEN", "TRELLO_KEY", "CLAWBENCH_TASK_ID"}
    assert extra <= {"PWD", "_", "SHLVL", "LC_CTYPE"}  # what the interpreter itself may add


def test_unset_privacy_var_stays_unset_and_is_named_in_the_log(tmp_path):
    task = load_task(package(tmp_path, DUMP_ENV, privacy="NOTION_TOKEN\nSNAPSHOT_MODE\n"))
    run_pre_exec(task, tmp_path / "logs", timeout_s=60, environ={"PATH": "/usr/bin:/bin"})
    seen = json.loads((task.package_dir / "ops" / "pre_task.env.json").read_text())
    assert "NOTION_TOKEN" not in seen and "SNAPSHOT_MODE" not in seen
    log = (tmp_path / "logs" / "pre_exec" / "ops__prep.py.log").read_text()
    assert log == "[clawmark] .privacy names not set in the runner's environment: NOTION_TOKEN, SNAPSHOT_MODE\n"


def test_snapshot_mode_sets_snapshot_mode_for_the_script(tmp_path):
    task = load_task(package(tmp_path, DUMP_ENV, privacy="SNAPSHOT_MODE\n"))
    run_pre_exec(task, tmp_path / "logs", timeout_s=60, environ={"PATH": "/usr/bin:/bin"}, snapshot=True)
    seen = json.loads((task.package_dir / "ops" / "pre_task.env.json").read_text())
    assert seen["SNAPSHOT_MODE"] == "1"


def test_failing_script_is_typed_with_its_log(tmp_path):
    task = load_task(package(tmp_path, "print('populating')\nraise SystemExit(4)\n"))
    with pytest.raises(PreExecFailed, match="ops/prep.py exited with code 4") as caught:
        run_pre_exec(task, tmp_path / "logs", timeout_s=60, environ={"PATH": "/usr/bin:/bin"})
    assert caught.value.log.read_text() == "populating\n"


def test_script_past_its_deadline_is_typed(tmp_path):
    task = load_task(package(tmp_path, "import time\ntime.sleep(30)\n"))
    with pytest.raises(PreExecFailed, match="ran past its 1s timeout"):
        run_pre_exec(task, tmp_path / "logs", timeout_s=1, environ={"PATH": "/usr/bin:/bin"})


def test_runs_of_one_task_are_serialised(tmp_path):
    task = load_task(package(tmp_path, RECORD_SPAN))
    runs = [threading.Thread(target=run_pre_exec, args=(task, tmp_path / f"logs{i}", 60, {"PATH": "/usr/bin:/bin"}))
            for i in range(3)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    assert (task.package_dir / "ops" / "spans.log").read_text() == "start\nend\n" * 3
