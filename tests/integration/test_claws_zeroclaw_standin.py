"""The ZeroClaw adapter in an instance container, its ACP client talking to our stand-in of
``zeroclaw acp`` (tests/fixtures/zeroclaw/zeroclaw_standin.py, mounted where the real binary would be):
a graded patch attempt through the gateway, with ZeroClaw-style usage records cross-checked."""

from __future__ import annotations

import json

import pytest

from clawmark.gateway.ledger import read_ledger
from clawmark.results import Status
from tests.support.attempt_fixtures import INI, attempt, gateway, store  # noqa: F401
from tests.support.paths import FIXTURES

pytestmark = pytest.mark.docker
FIXTURES = FIXTURES / "zeroclaw"
STANDIN = {"host_dir": str(FIXTURES), "command": ["python3", "/opt/claws/zeroclaw/zeroclaw_standin.py", "acp"],
           "standin": True}


def test_the_adapter_drives_an_acp_agent_to_a_resolved_patch(store, gateway):  # noqa: F811
    row = attempt(INI, "zeroclaw", f"scripted/zeroclaw-{INI}", store, gateway, claw_settings=STANDIN)
    layout = store.layout(row.sweep_id, row.cell_key)
    assert (row.status, row.resolved, row.error_message) == (Status.RESOLVED, True, None)
    assert row.claw_version == "0.8.4-standin"  # never the real release's label
    turn = json.loads((layout.logs / "turn-0.json").read_text())
    assert (turn["success"], turn["exit_status"]) == (True, "end_turn")
    acp = json.loads((layout.transcript / "zeroclaw-acp-turn0.json").read_text())
    assert acp["agentInfo"]["name"] == "zeroclaw-standin" and acp["updates"]["toolCalls"] == ["shell", "shell"]
    ledger = read_ledger(layout.ledger)
    claimed = json.loads((layout.logs / "claw-usage.json").read_text())
    assert (claimed["calls"], claimed["input_tokens"]) == (len(ledger), sum(r.input_tokens for r in ledger))
    assert list((layout.transcript / "sessions").glob("s-*.json"))  # the session store, backed up
