"""EDICT's court on the real OpenClaw in the instance container: our three-role configuration
(tasks_catalog/edict) dispatched entry → owners of the kanban state → report, graded like any
patch attempt, with every role's calls in one ledger and OpenClaw's own usage agreeing with it."""

from __future__ import annotations

import json

import pytest

from clawmark.gateway.ledger import read_ledger
from clawmark.results import Status
from tests.integration.attempt_support import INI, attempt, gateway, store  # noqa: F401

pytestmark = pytest.mark.docker


@pytest.mark.timeout(1800)  # four OpenClaw runs per turn: 907 s at load 15, past pytest's 900 s
def test_the_court_fixes_the_instance_through_the_kanban(store, gateway):  # noqa: F811
    row = attempt(INI, "edict", f"scripted/edict-{INI}", store, gateway)
    layout = store.layout(row.sweep_id, row.cell_key)
    assert (row.status, row.resolved, row.error_message) == (Status.RESOLVED, True, None)
    assert "_strip_inline_comment" in layout.patch.read_text() and "SOUL.md" not in layout.raw_patch.read_text()
    trace = json.loads((layout.transcript / "edict-dispatch-turn0.json").read_text())
    assert trace["status"] == "Done"
    assert [(s["agent"], s["board_after"]) for s in trace["steps"]] == [
        ("taizi", {"JJC-1": "Zhongshu"}), ("zhongshu", {"JJC-1": "Assigned"}),
        ("shangshu", {"JJC-1": "Done"}), ("taizi", {"JJC-1": "Done"})]
    board = json.loads((layout.transcript / "edict-kanban.json").read_text())
    assert board[0]["output"] == "iniparse/reader.py" and len(board[0]["flow_log"]) == 3
    assert {p.name for p in layout.transcript.glob("openclaw-trajectory-*")} == {
        "openclaw-trajectory-taizi", "openclaw-trajectory-zhongshu", "openclaw-trajectory-shangshu"}
    ledger = read_ledger(layout.ledger)
    assert len(ledger) == 12 and {r.role for r in ledger} == {"executor"}  # 3 calls per role turn
    assert (row.claw_reported_input_tokens, row.usage_mismatch) == (sum(r.input_tokens for r in ledger), None)
