"""The host deadline really ends the claw before the patch is taken and the ledger is summed
(issue 7 part 5): at extraction no claw thread runs on the host and no claw process (the claw,
its tool command, what it left in the background) runs in the container; a model call cut at the
deadline is in the ledger, and in the row."""

from __future__ import annotations

import json
import math
import threading

import pytest

import clawmark.swe.patch as swe_patch
from clawmark.claws import Budgets
from clawmark.gateway.ledger import read_ledger
from tests.integration.attempt_support import INI, attempt, gateway, store  # noqa: F401

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


def test_in_container_claw_and_its_background_jobs_are_dead_at_extraction(store, gateway, seen_at_extraction):  # noqa: F811
    row = attempt(INI, "mini-swe-agent", f"scripted/mini-sleep-{INI}", store, gateway,
                  budgets=Budgets(seconds=45), deadline_grace_s=3)  # mini starts slowly on a busy machine
    layout = store.layout(row.sweep_id, row.cell_key)
    turn = json.loads((layout.logs / "turn-0.json").read_text())
    assert (turn["exit_status"], turn["timeout"]) == ("host_deadline", True)
    assert [r.status for r in read_ledger(layout.ledger)] == ["ok"]  # mini was in its first command
    assert seen_at_extraction["threads"] == []
    alive = [p for p in seen_at_extraction["processes"] if "sleep 321" in p or "/opt/claws/mini" in p]
    assert alive == [], alive
    half = len(seen_at_extraction["notes"]) // 2  # the file read twice, a second apart: no writer left
    assert seen_at_extraction["notes"][:half] == seen_at_extraction["notes"][half:]
    assert "first" in seen_at_extraction["notes"]
    assert "NOTES.txt" in layout.patch.read_text()


def test_a_model_call_cut_at_the_deadline_is_ledgered_and_counted(store, gateway, seen_at_extraction):  # noqa: F811
    row = attempt(INI, "reference", f"scripted/ref-slow-{INI}", store, gateway,
                  budgets=Budgets(seconds=1), deadline_grace_s=2)
    assert seen_at_extraction["threads"] == []  # the claw's thread was joined, not left to die
    (record,) = read_ledger(store.layout(row.sweep_id, row.cell_key).ledger)
    assert record.status == "abandoned"
    assert row.usage["executor"].calls == 1 and math.isnan(row.cost_usd)  # its cost is unknown, not 0
