"""What the supervisor really reads of a turn: the request as the scripted supervisor received it
through the real gateway, after one real closed-loop turn of OpenClaw (its export's
``events.jsonl``) and nanobot (its session JSONL). Its fenced transcript holds the turn's messages
and tool calls, tool results included, and none of the export's event JSON. EDICT (one OpenClaw
bundle per role) is checked on the claw kit's court case, which already runs its turns
(test_conformance_closed_loop.py), rather than paying for a third court run here."""

from __future__ import annotations

import pytest

from clawmark.catalog import load_task
from clawmark.results import Status
from tests.claws.kit import EXPORT_EVENT_JSON, KIT_CLAWS, supervisor_transcript
from tests.claws.test_conformance_closed_loop import _attempt, cassettes  # noqa: F401
from tests.support.closed_loop_fixtures import FIXTURES, decision

pytestmark = pytest.mark.docker
WRITE = ("mkdir -p /tmp_workspace/results && printf '{\"total\": 790.0, \"top_region\": \"East\"}' > "
         "/tmp_workspace/results/summary.json && echo transcript-tool-ran")
FINAL = "TRANSCRIPT-FINAL: saved summary.json."


def _one_turn(name, provider, gateway, store, cassettes):  # noqa: F811
    claw = next(c for c in KIT_CLAWS if c.name == name)
    supervisor = cassettes(f"tr-sup-{name}", [{"content": decision("pass", "complete_and_passed", 1.0)}])
    executor = cassettes(f"tr-ex-{name}", [
        {"content": "Writing the summary.", "tool_calls": [{"name": "exec", "arguments": {"command": WRITE}}]},
        {"content": FINAL}])
    row = _attempt(load_task(FIXTURES / "closed_loop" / "fx_101_sum"), claw, executor, store, gateway,
                   supervisor_model=supervisor)
    assert (row.status, row.turns) == (Status.PASS, 1), row.error_message
    requests = provider.requests(supervisor.split("/", 1)[1])
    assert len(requests) == 1
    return supervisor_transcript(requests[0])


@pytest.mark.parametrize("name", ["openclaw", "nanobot"])
def test_the_supervisor_reads_the_turn_messages_and_tool_calls(name, provider, gateway, store, cassettes):  # noqa: F811
    text = _one_turn(name, provider, gateway, store, cassettes)
    lines = text.splitlines()
    call = lines.index("[assistant] Writing the summary.")
    assert lines[call + 1].startswith('  -> tool call exec({"command": "mkdir -p /tmp_workspace/results')
    assert lines[call + 2].startswith("[tool exec] ") and "transcript-tool-ran" in lines[call + 2]
    assert f"[assistant] {FINAL}" in lines[call + 3:]
    assert lines[0].startswith("[user] ") and not any(marker in text for marker in EXPORT_EVENT_JSON)

