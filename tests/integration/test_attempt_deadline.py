"""The host deadline really ends the claw before the patch is taken and the ledger is summed
(issue 7 part 5): at extraction no claw thread runs on the host and no claw process (the claw,
its tool command, what it left in the background) runs in the container; a model call cut at the
deadline is in the ledger, and in the row."""

from __future__ import annotations

import json
import math
import threading

import pytest

import clawmark.swe.patch_extract as swe_patch
from clawmark.claws import Budgets
from clawmark.gateway.ledger import read_ledger
from tests.support.attempt_fixtures import INI, attempt, gateway, store  # noqa: F401

pytestmark = pytest.mark.docker

PROCESSES = "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done"


@pytest.fixture
def seen_at_extraction(monkeypatch):
    """What runs when the runner takes the patch: host threads and the container's processes."""
    seen: dict = {}
    real = swe_patch.extract_patch

    def observed(sandbox, base_commit, *args, **kwargs):
        seen["threads"] = [t.name for t in threading.enumerate() if t.name == "claw-turn"]
        seen["processes"] = sandbox.exec(PROCESSES, timeout_s=30, user="0").stdout.splitlines()
        seen["notes"] = sandbox.exec("cat /testbed/NOTES.txt; sleep 1; cat /testbed/NOTES.txt", timeout_s=30).stdout
        return real(sandbox, base_commit, *args, **kwargs)

    monkeypatch.setattr(swe_patch, "extract_patch", observed)
    return seen


def test_the_claw_its_tool_and_its_background_job_are_dead_at_extraction(store, gateway, seen_at_extraction):  # noqa: F811
    row = attempt(INI, "reference", f"scripted/ref-sleep-{INI}", store, gateway,
                  budgets=Budgets(seconds=2), deadline_grace_s=2)
    layout = store.layout(row.sweep_id, row.cell_key)
    turn = json.loads((layout.logs / "turn-0.json").read_text())
    assert (turn["exit_status"], turn["timeout"]) == ("host_deadline", True)
    assert [r.status for r in read_ledger(layout.ledger)] == ["ok"]  # the claw was inside its tool call
    assert seen_at_extraction["threads"] == []
    alive = [p for p in seen_at_extraction["processes"] if "sleep 321" in p or "NOTES.txt" in p]
    assert alive == [], alive
    notes = seen_at_extraction["notes"]  # the file read twice, a second apart: no writer left
    assert notes.startswith("first\n") and notes[:len(notes) // 2] == notes[len(notes) // 2:]
    assert "NOTES.txt" in layout.patch.read_text()


def test_an_in_container_claw_is_dead_at_extraction(store, gateway, seen_at_extraction):  # noqa: F811
    row = attempt(INI, "mini-swe-agent", f"scripted/mini-sleep-{INI}", store, gateway,
                  budgets=Budgets(seconds=30), deadline_grace_s=3)
    turn = json.loads((store.layout(row.sweep_id, row.cell_key).logs / "turn-0.json").read_text())
    assert (turn["exit_status"], turn["timeout"]) == ("host_deadline", True)
    assert seen_at_extraction["threads"] == []
    alive = [p for p in seen_at_extraction["processes"] if "sleep 321" in p or "/opt/claws/mini" in p]
    assert alive == [], alive  # mini (starting, or in its command) and its job were killed


def test_a_model_call_cut_at_the_deadline_is_ledgered_and_counted(store, gateway, seen_at_extraction):  # noqa: F811
    row = attempt(INI, "reference", f"scripted/ref-slow-{INI}", store, gateway,
                  budgets=Budgets(seconds=1), deadline_grace_s=2)
    assert seen_at_extraction["threads"] == []  # the claw's thread was joined, not left to die
    (record,) = read_ledger(store.layout(row.sweep_id, row.cell_key).ledger)
    assert record.status == "abandoned"
    assert row.usage["executor"].calls == 1 and math.isnan(row.cost_usd)  # its cost is unknown, not 0
