"""Time budgets of a closed-loop attempt: each executor turn has its own limit, all executor turns
together have the global one, and judging time (checks, supervisor, simulator) counts for
neither. Scripted latencies make the clock deterministic enough: every margin is seconds wide."""

from __future__ import annotations

import json

import pytest

from clawmark.catalog import load_task
from clawmark.results import Status
from tests.support.closed_loop_fixtures import (  # noqa: F401
    attempt,
    cassettes,
    copied_task,
    cycle_json,
    decision,
    gateway,
    sim_reply,
    store,
)

pytestmark = pytest.mark.docker
WRITE = "echo '{\"total\": 790.0, \"top_region\": \"East\"}' > /tmp_workspace/results/summary.json"


def _slow_executor(cassettes, latency_s: float) -> str:
    return cassettes("exec-slow", [
        {"latency_s": latency_s, "tool_calls": [{"name": "bash", "arguments": {"command": WRITE}}]},
        {"content": "Saved."},
    ])


def test_a_turn_over_the_global_budget_is_a_global_timeout(tmp_path, store, gateway, cassettes):  # noqa: F811
    supervisor = cassettes("sup-cont", [{"content": decision("continue", "incomplete", 0.5, True)}])
    row = attempt(load_task(copied_task(tmp_path)), _slow_executor(cassettes, 4), store, gateway,
                  supervisor_model=supervisor, turn_timeout_s=2, total_timeout_s=2)
    assert (row.status, row.error_kind, row.turns, row.passed) == (Status.GLOBAL_TIMEOUT, "timeout", 1, False)
    assert cycle_json(row, 0, "turn.json")["exit_status"] == "time_limit"
    assert row.score == 0.5  # the cut turn was still judged


def test_a_turn_over_its_own_limit_is_executor_incomplete(tmp_path, store, gateway, cassettes):  # noqa: F811
    supervisor = cassettes("sup-cont", [{"content": decision("continue", "incomplete", 0.5, True)}])
    row = attempt(load_task(copied_task(tmp_path)), _slow_executor(cassettes, 4), store, gateway,
                  supervisor_model=supervisor, turn_timeout_s=2, total_timeout_s=100)
    assert (row.status, row.turns, row.passed) == (Status.EXECUTOR_INCOMPLETE, 1, False)


def test_a_pass_on_a_cut_turn_is_not_lost(tmp_path, store, gateway, cassettes):  # noqa: F811
    supervisor = cassettes("sup-pass", [{"content": decision("pass", "complete_and_passed", 1.0)}])
    row = attempt(load_task(copied_task(tmp_path)), _slow_executor(cassettes, 4), store, gateway,
                  supervisor_model=supervisor, turn_timeout_s=2, total_timeout_s=100)
    assert (row.status, row.passed, row.score) == (Status.PASS, True, 1.0)  # upstream defect 1 fixed


def test_judging_time_is_not_executor_time(tmp_path, store, gateway, cassettes):  # noqa: F811
    executor = cassettes("exec-two", [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo '{}' > /tmp_workspace/results/summary.json"}}]},
        {"content": "Saved a first version."},
        {"tool_calls": [{"name": "bash", "arguments": {"command": WRITE}}]},
        {"content": "Fixed."},
    ])
    supervisor = cassettes("sup-slow", [
        {"match": "EXECUTOR TURN 1 OF 3", "latency_s": 5, "content": decision("continue", "incomplete", 0.2, True)},
        {"match": "EXECUTOR TURN 2 OF 3", "latency_s": 5, "content": decision("pass", "complete_and_passed", 1.0)},
    ])
    simulator = cassettes("sim-slow", [{"latency_s": 3, "content": sim_reply("Please put the real numbers in.")}])
    row = attempt(load_task(copied_task(tmp_path)), executor, store, gateway, supervisor_model=supervisor,
                  simulator_model=simulator, turn_timeout_s=8, total_timeout_s=8)
    assert (row.status, row.turns, row.score) == (Status.PASS, 2, 1.0)  # 13 s of judging, under 8 s of budget
    assert row.wall.judge >= 13  # more judging than the whole executor budget
    assert json.loads(row.turn_scores) == [0.2, 1.0]


def test_snapshot_mode_runs_the_offline_text_on_offline_sources(store, gateway, cassettes):  # noqa: F811
    from tests.support.closed_loop_fixtures import bundled_task, cycle_file

    task = bundled_task("en_105_ticket_sync")
    executor = cassettes("exec-snap", [
        {"tool_calls": [{"name": "bash", "arguments": {"command": """python3 - <<'PY'
import json
tickets = json.load(open('/tmp_workspace/clawbench/sources/tickets_snapshot.json'))
tickets = tickets.get('tickets', tickets) if isinstance(tickets, dict) else tickets
ids = sorted(t['id'] for t in tickets if t['status'] == 'open' and t['priority'] == 'high' and not t['deleted'])
json.dump(ids, open('/tmp_workspace/results/high_open.json', 'w'))
print(ids)
PY"""}}]},
        {"content": "Saved from the export."},
    ])
    supervisor = cassettes("sup-snap", [{"content": decision("pass", "complete_and_passed", 1.0)}])
    row = attempt(task, executor, store, gateway, supervisor_model=supervisor, snapshot=True)
    sent = cycle_file(row, 0, "prompt.txt").read_text()  # the runtime facts, then the snapshot text
    assert sent.startswith("Runtime context") and sent.rstrip().endswith(task.spec.task_snapshot.strip())
    assert task.spec.task.strip() not in sent
    assert json.loads(cycle_file(row, 0, "results/high_open.json").read_text()) == [101, 104, 107, 111]
    assert (row.status, row.snapshot_mode, row.score) == (Status.PASS, True, 1.0)
