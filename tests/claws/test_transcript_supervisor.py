"""What the supervisor really reads of a turn, for the three session formats that differ most:
the request as the scripted supervisor received it through the real gateway, after one real
closed-loop turn of OpenClaw (its export's ``events.jsonl``), EDICT (one OpenClaw bundle per
role) and nanobot (its session JSONL). Its fenced transcript holds the turn's messages and tool
calls, tool results included, and none of the export's event JSON."""

from __future__ import annotations

import re

import pytest

from clawmark.catalog import load_task
from clawmark.gateway.cassettes import content_text
from clawmark.results import Status
from tests.claws.kit import KIT_CLAWS
from tests.claws.test_conformance_closed_loop import TURN_TIMEOUT_S, _attempt, cassettes  # noqa: F401
from tests.integration.closed_loop_support import FIXTURES, bundled_task, decision

pytestmark = pytest.mark.docker
WRITE = ("mkdir -p /tmp_workspace/results && printf '{\"total\": 790.0, \"top_region\": \"East\"}' > "
         "/tmp_workspace/results/summary.json && echo transcript-tool-ran")
FINAL = "TRANSCRIPT-FINAL: saved summary.json."
EVENT_JSON = ('"traceSchema"', '"type": "assistant.message"', '"source": "transcript"', "toolResult",
              "[events.jsonl]", "[artifacts.json]", "[session-branch.json]", '"_type": "metadata"')


def _transcript_in(request: dict) -> str:
    """The fenced executor transcript of the supervisor's request, gutters removed."""
    prompt = "\n".join(content_text(m.get("content")) for m in request["messages"] if m.get("role") == "user")
    fenced = re.search(r"<<<CLAW-DATA \w+ BEGIN executor transcript>>>\n(.*?)\n<<<CLAW-DATA \w+ END", prompt, re.S)
    assert fenced, prompt[:2000]
    return "\n".join(line.removeprefix("│ ") for line in fenced[1].splitlines())


def _one_turn(name, provider, gateway, store, cassettes):  # noqa: F811
    claw = next(c for c in KIT_CLAWS if c.name == name)
    # EDICT's turn 1 counts a voided invoice, so the task's checks would turn a pass into a continue:
    # a fail ends its attempt after that one turn.
    verdict = ("fail", "complete_but_failed", 0.2) if name == "edict" else ("pass", "complete_and_passed", 1.0)
    supervisor = cassettes(f"tr-sup-{name}", [{"content": decision(*verdict)}])
    if name == "edict":  # its court plays its own cassette
        row = _attempt(bundled_task("zh_201_invoice_sum"), claw, "scripted/edict-cl-{task_id}", store, gateway,
                       supervisor_model=supervisor, turn_timeout_s=4 * TURN_TIMEOUT_S,
                       total_timeout_s=4 * TURN_TIMEOUT_S)  # a turn is four OpenClaw runs
    else:
        executor = cassettes(f"tr-ex-{name}", [
            {"content": "Writing the summary.", "tool_calls": [{"name": "exec", "arguments": {"command": WRITE}}]},
            {"content": FINAL}])
        row = _attempt(load_task(FIXTURES / "closed_loop" / "fx_101_sum"), claw, executor, store, gateway,
                       supervisor_model=supervisor)
    assert (row.status, row.turns) == (Status.FAIL if name == "edict" else Status.PASS, 1), row.error_message
    requests = provider.requests(supervisor.split("/", 1)[1])
    assert len(requests) == 1
    return _transcript_in(requests[0])


@pytest.mark.parametrize("name", ["openclaw", "nanobot"])
def test_the_supervisor_reads_the_turn_messages_and_tool_calls(name, provider, gateway, store, cassettes):  # noqa: F811
    text = _one_turn(name, provider, gateway, store, cassettes)
    lines = text.splitlines()
    call = lines.index("[assistant] Writing the summary.")
    assert lines[call + 1].startswith('  -> tool call exec({"command": "mkdir -p /tmp_workspace/results')
    assert lines[call + 2].startswith("[tool exec] ") and "transcript-tool-ran" in lines[call + 2]
    assert f"[assistant] {FINAL}" in lines[call + 3:]
    assert lines[0].startswith("[user] ") and not any(marker in text for marker in EVENT_JSON)


@pytest.mark.timeout(8 * TURN_TIMEOUT_S)  # four OpenClaw runs in one turn
def test_the_supervisor_reads_every_edict_role_in_turn_order(provider, gateway, store, cassettes):  # noqa: F811
    text = _one_turn("edict", provider, gateway, store, cassettes)
    speakers = re.findall(r"^\[(\w+): (user|assistant|tool exec)\]", text, re.M)
    agents = [agent for agent, role in speakers if role == "assistant"]
    assert [a for i, a in enumerate(agents) if i == 0 or agents[i - 1] != a] == ["taizi", "zhongshu", "shangshu", "taizi"]
    assert "kanban_update.py create JJC-1" in text and re.search(r"^\[taizi: tool exec\] .*JJC-1: created", text, re.M)
    assert "[taizi: assistant] KIT-TURN-0: the front desk handed your invoice request" in text
    assert re.search(r"^  -> tool call exec\(", text, re.M) and not any(marker in text for marker in EVENT_JSON)
