"""The real EDICT court (claw ``edict``) on the real OpenClaw in a closed-loop task's container, on
the agents of a fixture checkout (tests/fixtures/edict-checkout) and the scripted model
(tests/fixtures/cassettes/edict-court-zh_201_invoice_sum.yaml): the whole chain front desk →
secretariat → chancellery → department of state affairs → the ministry its ``flow`` named → the
front desk's report, dispatched from the kanban by upstream's rules, every agent's calls in one
ledger. The orchestrator's other paths (idle, timeout, Blocked...) are tests/unit/claws/test_claws_edict_court.py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawmark.gateway.ledger import read_ledger
from clawmark.results import Status
from tests.support.closed_loop_fixtures import (FIXTURES, attempt, bundled_task, cassettes, decision,  # noqa: F401
                                                    gateway, store)

pytestmark = pytest.mark.docker
CHECKOUT = FIXTURES / "edict-checkout"
CHAIN = ["taizi", "zhongshu", "menxia", "shangshu", "hubu", "taizi"]


# clawmark's own profile (OpenClaw 2026.9.6, sessions exported as trajectories) and UniClawBench's
# (the court on its pinned OpenClaw 2026.3.11, JSONL session files copied).
@pytest.mark.parametrize(("profile", "openclaw", "saved_prefix"), [
    ("clawmark", "2026.9.6", "openclaw-trajectory-"), ("ucb-paper", "2026.3.11", "openclaw-sessions-")])
@pytest.mark.timeout(1800)  # six OpenClaw runs: 15-20 s each when idle, minutes each at load 15
def test_the_court_passes_a_bundled_task_through_every_department_and_a_ministry(store, gateway, cassettes,  # noqa: F811
                                                                                profile, openclaw, saved_prefix):
    from clawmark.claws import Budgets
    from clawmark.claws.profiles import ProfileUse, profiled_claw

    settings = {"checkout": str(CHECKOUT)}
    supervisor = cassettes("edict-court-sup", [
        {"match": "EXECUTOR TURN 1 OF", "content": decision("pass", "complete_and_passed", 1.0)}])
    row = attempt(bundled_task("zh_201_invoice_sum"), "scripted/edict-court-zh_201_invoice_sum", store, gateway,
                  claw="edict", claw_settings=settings, supervisor_model=supervisor, profile=ProfileUse(name=profile),
                  turn_timeout_s=3600.0, total_timeout_s=3600.0)
    assert (row.status, row.turns, row.score, row.error_message) == (Status.PASS, 1, 1.0, None)
    court = profiled_claw("edict", settings, Budgets(), ProfileUse(name=profile))[0]
    assert row.claw_version == f"fixture+openclaw.{openclaw}" == court.version
    assert row.claw_profile == profile
    artifacts = Path(row.artifacts_dir)
    assert (artifacts / "cycles" / "0" / "results" / "invoice_total.txt").read_text() == "1816.00\n"
    trace = json.loads((artifacts / "transcript" / "edict-dispatch-turn0.json").read_text())
    assert trace["status"] == "Done" and [s["agent"] for s in trace["steps"]] == CHAIN
    assert [s["board_after"] for s in trace["steps"]] == [
        {"JJC-1": state} for state in ("Zhongshu", "Menxia", "Assigned", "Assigned", "Done", "Done")]
    saved = artifacts / "cycles" / "0" / "transcript"  # what backup_session kept of the turn
    board = json.loads((saved / "edict-kanban.json").read_text())
    assert (board[0]["org"], board[0]["summary"]) == ("户部", "剔除作废后 1816.00")
    assert {p.name for p in saved.glob(f"{saved_prefix}*")} == {f"{saved_prefix}{agent}" for agent in CHAIN}
    # Each agent's report to the user: the front desk's last words are the court's final answer.
    report = (artifacts / "transcript" / "openclaw-turn0-report.json").read_text()
    assert "COURT-REPORT" in report
    ledger = [r for r in read_ledger(store.layout(row.sweep_id, row.cell_key).ledger) if r.role == "executor"]
    assert len(ledger) == 3 * len(CHAIN)  # board, action, final answer: three calls per agent turn
