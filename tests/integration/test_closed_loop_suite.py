"""The bundled closed-loop suite through `clawmark run` on its scripted models (cl-/sup-/sim-
cassettes) and the reference claw in real task containers: each task ends with exactly the
status, score, turns and per-turn scores its cassettes and checks imply.

Expectations are worked out from the cassettes and references/checks.yaml, not copied from a
run. Final score per turn = code part (weights of fully covered checkpoints whose checks all
pass, over the total weight) + supervisor score × uncovered share, then capped by failed cap
checks (tasks_catalog/closed_loop/README.md):
- pass on turn 1: the executor writes the correct deliverable, every check passes, the
  supervisor says pass with 1.0 → 1.0 (en_102: C1+C2 = 0.8 in code + 1.0 × C3 0.2).
- en_105: turn 1 lists page 1 only ([101, 104]): high_open fails → CP1 (0.6) lost, cap 0.4,
  supervisor 0.5 × uncovered 0.4 = 0.2, continue; turn 2 all pages: 0.6 + 1.0 × 0.4 = 1.0, pass.
- zh_201: turn 1 counts the void invoice: only CP1 (0.2) passes, cap booked_total 0.5 → 0.2,
  continue; turn 2 without it → 1.0, pass.
- zh_202: both turns E502/49: code_line and count_line fail → 0 in code, supervisor 0.5 ×
  uncovered C3 0.2 = 0.1 (under the 0.3 cap); one follow-up, then the supervisor's fail.
- zh_204: both turns 线上商城 38: only share_keys (C1 0.2) passes, cap 0.2 → 0.2; then fail.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clawmark.catalog import load_tasks
from clawmark.cli.main import app
from tests.support.closed_loop_fixtures import BUNDLED

pytestmark = pytest.mark.docker

# task: (status, score, turns, turn_scores, best_turn (0-based), checks passed / total on the best turn)
EXPECTED = {
    "en_101_sales_total": ("pass", 1.0, 1, [1.0], 0, (5, 5)),
    "en_102_find_port": ("pass", 1.0, 1, [1.0], 0, (2, 2)),
    "en_103_meeting_decision": ("pass", 1.0, 1, [1.0], 0, (4, 4)),
    "en_104_chart_peak": ("pass", 1.0, 1, [1.0], 0, (3, 3)),
    "en_105_ticket_sync": ("pass", 1.0, 2, [0.2, 1.0], 1, (2, 2)),
    "zh_201_invoice_sum": ("pass", 1.0, 2, [0.2, 1.0], 1, (4, 4)),
    "zh_202_error_code": ("fail", 0.1, 2, [0.1, 0.1], 0, (0, 3)),
    "zh_203_contract_clause": ("pass", 1.0, 1, [1.0], 0, (4, 4)),
    "zh_204_pie_share": ("fail", 0.2, 2, [0.2, 0.2], 0, (1, 3)),
    "zh_205_inbox_digest": ("pass", 1.0, 1, [1.0], 0, (5, 5)),
    "uc_101_word_count": ("pass", 1.0, 1, [1.0], 0, (3, 3)),
    "uc_202_todo_merge": ("pass", 1.0, 1, [1.0], 0, (4, 4)),
    # headed (desktop image): their supervisors answer only with the desktop screenshot in the request
    "en_106_dashboard_chart": ("pass", 1.0, 1, [1.0], 0, (4, 4)),
    "zh_206_sheet_total": ("pass", 1.0, 1, [1.0], 0, (2, 2)),
}
FOLLOW_UPS = {"en_105_ticket_sync": "more tickets than the first page", "zh_201_invoice_sum": "作废的发票不能入账",
              "zh_202_error_code": "统计口径", "zh_204_pie_share": "以饼图本身为准"}


@functools.cache
def _bundled() -> dict:
    return {task.task_id: task for task in load_tasks(BUNDLED)}


def _run(task_id: str, tmp_path) -> dict:
    args = ["run", task_id, "--tasks", str(BUNDLED), "--claw", "reference", "--model", "scripted/cl-{task_id}",
            "--results", str(tmp_path / "results"), "--sweep-id", "suite", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{"):])


def test_the_suite_has_every_designed_outcome():
    statuses = [e[0] for e in EXPECTED.values()]
    assert statuses.count("fail") >= 1 and any(e[2] == 2 and e[0] == "pass" for e in EXPECTED.values())
    assert sorted(EXPECTED) == sorted(p.name.removeprefix("cl-").removesuffix(".yaml")
                                      for p in (BUNDLED.parent / "cassettes").glob("cl-*.yaml"))


@pytest.mark.parametrize("task_id", sorted(EXPECTED))
def test_bundled_task_ends_as_its_cassettes_imply(task_id, tmp_path, docker_client):
    status, score, turns, turn_scores, best_turn, (passed, total) = EXPECTED[task_id]
    row = _run(task_id, tmp_path)
    assert row["status"] == status, row["error_message"]
    assert math.isclose(row["score"], score, abs_tol=1e-6) and row["passed"] is (status == "pass")
    assert (row["turns"], row["followups_used"], row["best_turn"]) == (turns, turns - 1, best_turn)
    assert [round(s, 6) for s in json.loads(row["turn_scores"])] == turn_scores
    assert (row["checks_passed"], row["checks_total"]) == (passed, total)
    assert json.loads(row["leak_flags"]) == []  # the follow-ups quote nothing hidden
    services = _bundled()[task_id].services  # a set-up of oneshot services first is captured once
    cached = bool(services) and services[0].spec.oneshot
    assert row["setup_cache"] in ({"captured", "hit"} if cached else {"off: no oneshot set-up"})
    assert (row["setup_cache_key"] is not None) is cached
    assert row["usage"]["executor"]["calls"] > 0 and row["usage"]["supervisor"]["calls"] == turns
    assert row["usage"]["user_simulator"]["calls"] == turns - 1
    if turns > 1:
        feedback = Path(row["artifacts_dir"]) / "cycles" / "0" / "feedback.txt"
        assert FOLLOW_UPS[task_id] in feedback.read_text(encoding="utf-8")


def test_show_prints_the_attempt_cycle_by_cycle(tmp_path, docker_client):
    row = _run("en_105_ticket_sync", tmp_path)
    result = CliRunner().invoke(app, ["show", row["artifacts_dir"]])
    assert result.exit_code == 0, result.output
    first, second = result.output.split("── turn 1 ──")[1].split("── turn 2 ──")
    assert "decision: continue / incomplete, score 0.2" in first and "checks: 0/2 passed; failed: high_open, receipts" in first
    assert "feedback sent: I think there are more tickets than the first page" in first
    assert "decision: pass / complete_and_passed, score 1.0" in second and "feedback sent" not in second
    assert "status pass, passed True, score 1.0 (threshold 0.9), best turn 2, stop: pass" in result.output
    assert CliRunner().invoke(app, ["show", str(tmp_path)]).exit_code == 1  # not an attempt folder
