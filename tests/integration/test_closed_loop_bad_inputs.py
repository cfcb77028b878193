"""Bad inputs of a closed-loop attempt each end in one clear typed status or flag, and nothing
else of the run is lost: a rubric without a checkpoint section, a check that crashes, a service
that never becomes ready, a oneshot service that fails, a supervisor that answers garbage twice,
a simulator that answers in the wrong language (a leaking one: test_closed_loop_leak_gate.py).
Real containers, real claw, scripted models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from clawmark.catalog import load_task
from clawmark.results import Status
from tests.support.closed_loop_fixtures import (  # noqa: F401
    FIXTURE_EXECUTOR,
    FIXTURE_TASK,
    attempt,
    cassettes,
    copied_task,
    cycle_file,
    cycle_json,
    decision,
    gateway,
    sim_reply,
    store,
)

pytestmark = pytest.mark.docker
TASK = FIXTURE_TASK
EXECUTOR = FIXTURE_EXECUTOR  # writes results/summary.json {total 790.0, top_region East}


def _edit_yaml(path: Path, **changes) -> None:
    data = yaml.safe_load(path.read_text())
    data.update(changes)
    path.write_text(yaml.safe_dump(data, allow_unicode=True))


def test_rubric_without_checkpoint_section_is_judged_from_its_text(tmp_path, store, gateway, cassettes):  # noqa: F811
    folder = copied_task(tmp_path, TASK)
    rule = folder / "references" / "eval_rule.md"
    text = rule.read_text()
    rule.write_text(text[: text.index("## 5.")] + text[text.index("## 7."):])  # no checkpoints, no caps
    task = load_task(folder)
    assert task.rubric.checkpoints == [] and task.warnings
    supervisor = cassettes("sup-nocp", [{"content": decision("pass", "complete_and_passed", 0.95)}])
    row = attempt(task, EXECUTOR, store, gateway, supervisor_model=supervisor)
    assert (row.status, row.passed, row.score, row.turns) == (Status.PASS, True, 0.95, 1)
    saved = json.loads((Path(row.artifacts_dir) / "config.json").read_text())
    assert saved["task_warnings"] == task.warnings  # the reader of the folder sees what was not extracted


def test_crashing_check_is_a_failed_check_and_the_attempt_goes_on(tmp_path, store, gateway, cassettes):  # noqa: F811
    folder = copied_task(tmp_path, TASK)
    (folder / "references" / "boom.py").write_text("raise RuntimeError('bug in the check script')\n")
    (folder / "references" / "checks.yaml").write_text(yaml.safe_dump({"checks": [
        {"id": "summary_exists", "checkpoint": "C1", "kind": "file_exists", "path": "results/summary.json"},
        {"id": "total_ok", "checkpoint": "C2", "kind": "script", "script": "references/boom.py"},
    ]}))
    task = load_task(folder)
    supervisor = cassettes("sup-crash", [{"content": decision("fail", "complete_but_failed", 0.8)}])
    row = attempt(task, EXECUTOR, store, gateway, supervisor_model=supervisor)
    checks = {c["id"]: c for c in cycle_json(row, 0, "checks.json")}
    assert checks["summary_exists"]["passed"] and not checks["total_ok"]["passed"]
    assert checks["total_ok"]["crashed"] is True and "bug in the check script" in checks["total_ok"]["detail"]
    # C1 (0.20) and C2 (0.45) are scored in code: 0.20 earned; the supervisor's 0.8 scales C3 (0.35).
    assert row.score == pytest.approx(0.20 + 0.8 * 0.35) and (row.checks_passed, row.checks_total) == (1, 2)
    assert (row.status, row.passed, row.turns) == (Status.FAIL, False, 1)
    assert cycle_file(row, 0, "results/summary.json").is_file()


def test_service_that_never_becomes_ready_is_an_infra_error_with_its_log(tmp_path, store, gateway):  # noqa: F811
    folder = copied_task(tmp_path, TASK)
    (folder / "services" / "api").mkdir(parents=True)
    (folder / "services" / "api" / "serve.py").write_text("import time\nprint('warming up', flush=True)\ntime.sleep(600)\n")
    _edit_yaml(folder / "task.yaml", services=[{"name": "api", "start": "python3 serve.py --port 8931"}])
    row = attempt(load_task(folder), EXECUTOR, store, gateway, service_ready_s=3)
    assert (row.status, row.passed, row.turns) == (Status.INFRA_ERROR, None, 0)
    assert "never became ready" in row.error_message and row.failure_reason == "ServiceFailed"
    logs = list((Path(row.artifacts_dir) / "logs").rglob("api*.log"))
    assert logs and "warming up" in logs[0].read_text()
    assert row.usage["executor"].calls == 0  # no turn ran on a half-ready task


def test_failing_oneshot_service_is_an_infra_error_with_its_log(tmp_path, store, gateway):  # noqa: F811
    folder = copied_task(tmp_path, TASK)
    (folder / "services" / "seed").mkdir(parents=True)
    (folder / "services" / "seed" / "seed.sh").write_text("echo 'seeding the store'\necho 'disk full' >&2\nexit 3\n")
    _edit_yaml(folder / "task.yaml", services=[{"name": "seed", "start": "bash seed.sh", "oneshot": True}])
    row = attempt(load_task(folder), EXECUTOR, store, gateway)
    assert (row.status, row.error_kind, row.turns) == (Status.INFRA_ERROR, "infra", 0)
    assert "seed" in row.error_message
    logs = list((Path(row.artifacts_dir) / "logs").rglob("seed*.log"))
    assert logs and "disk full" in logs[0].read_text()


def test_supervisor_garbage_twice_is_an_infra_error_that_keeps_the_turn(tmp_path, store, gateway, cassettes):  # noqa: F811
    task = load_task(copied_task(tmp_path, TASK))
    supervisor = cassettes("sup-garbage", [{"content": "Looks fine to me!"}, {"content": "{\"verdict\": \"maybe\"}"}])
    row = attempt(task, EXECUTOR, store, gateway, supervisor_model=supervisor)
    assert (row.status, row.error_kind, row.failure_reason) == (Status.INFRA_ERROR, "infra", "supervisor_invalid")
    assert row.turns == 1 and row.passed is None
    saved = cycle_json(row, 0, "decision.json")
    assert saved["raw_outputs"] == ["Looks fine to me!", "{\"verdict\": \"maybe\"}"]
    assert json.loads(cycle_file(row, 0, "results/summary.json").read_text())["top_region"] == "East"
    assert (row.usage["executor"].calls, row.usage["supervisor"].calls) == (3, 2)


def test_simulator_in_the_wrong_language_is_flagged_and_the_follow_up_still_goes(tmp_path, store, gateway, cassettes):  # noqa: F811
    folder = copied_task(tmp_path, TASK)
    _edit_yaml(folder / "task.yaml", category="201_skill_usage_zh")  # a Chinese task now
    task = load_task(folder)
    assert task.language == "zh"
    executor = cassettes("exec-zh", [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo '{\"total\": 700}' > results/summary.json"}}]},
        {"content": "已保存。"},
        {"tool_calls": [{"name": "bash", "arguments": {
            "command": "echo '{\"total\": 790.0, \"top_region\": \"East\"}' > results/summary.json"}}]},
        {"content": "已修正。"},
    ])
    supervisor = cassettes("sup-zh", [
        {"match": "EXECUTOR TURN 1 OF 3", "content": decision("continue", "incomplete", 0.2, True)},
        {"match": "EXECUTOR TURN 2 OF 3", "content": decision("pass", "complete_and_passed", 1.0)},
    ])
    simulator = cassettes("sim-en", [{"content": sim_reply("The region with the highest revenue is missing, please add it.")}])
    row = attempt(task, executor, store, gateway, supervisor_model=supervisor, simulator_model=simulator)
    assert (row.status, row.turns, row.best_turn, row.score) == (Status.PASS, 2, 1, 1.0)
    assert any(f.startswith("wrong_language: expected zh") for f in json.loads(row.leak_flags))
    assert cycle_file(row, 0, "feedback.txt").read_text() == (
        "The region with the highest revenue is missing, please add it.")
    assert cycle_file(row, 1, "prompt.txt").read_text() == cycle_file(row, 0, "feedback.txt").read_text()


def test_failing_pre_exec_is_pre_exec_failed_with_its_log(tmp_path, store, gateway):  # noqa: F811
    folder = copied_task(tmp_path, TASK)
    (folder / "prepare.sh").write_text("echo 'fetching the fixture'\necho 'token rejected' >&2\nexit 4\n")
    _edit_yaml(folder / "task.yaml", pre_exec=["prepare.sh"])
    row = attempt(load_task(folder), EXECUTOR, store, gateway)
    assert (row.status, row.error_kind, row.passed, row.turns) == (Status.PRE_EXEC_FAILED, "infra", None, 0)
    assert "prepare.sh" in row.error_message
    logs = list((Path(row.artifacts_dir) / "logs").rglob("*prepare*"))
    assert logs and "token rejected" in logs[0].read_text()
