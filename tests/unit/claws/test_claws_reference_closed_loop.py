"""The reference claw on the closed-loop track, against scripted models over real HTTP: two turns
in one session (the second request carries the first turn's messages), the closed-loop system
prompt, and view_image — the picture goes into the conversation as an image part, or, for a
blind executor, the task's image model describes it through the gateway (ledger: executor)."""

from __future__ import annotations

import base64
import json

import pytest
import yaml

from clawmark.claws import ClawContext, get_claw
from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.settings import TASKS_CATALOG
from tests.support.claws_host import HostExecutor

CHART = TASKS_CATALOG / "closed_loop" / "en_104_chart_peak" / "sources" / "monthly_revenue.png"


def _cassette(folder, name, steps):
    (folder / f"{name}.yaml").write_text(yaml.safe_dump({"steps": steps}))


@pytest.fixture
def cassettes(tmp_path, monkeypatch):
    folder = tmp_path / "cassettes"
    folder.mkdir()
    monkeypatch.setenv("CLAWMARK_CASSETTES", str(folder))
    return folder


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path_factory.mktemp("ledgers"))) as server:
        yield server


def _context(gateway, tmp_path, model, attempt, image_model=None):
    workspace = tmp_path / "ws"
    (workspace / "results").mkdir(parents=True)
    ledger = tmp_path / "ledger.jsonl"
    gateway.register_attempt(attempt, model=model, ledger_path=ledger)
    vision = ""
    if image_model:
        gateway.register_attempt(f"{attempt}-vision", model=image_model, ledger_path=ledger)
        vision = gateway.base_url(f"{attempt}-vision", "executor")
    url = gateway.base_url(attempt, "executor")
    return ClawContext(sandbox=HostExecutor(workspace), attempt_id=attempt, model=model, gateway_url=url,
                       host_gateway_url=url, ledger_path=ledger, workspace=str(workspace),
                       host_dir=tmp_path / "claw", track="closed_loop", image_model=image_model,
                       image_gateway_url=vision)


def test_follow_up_continues_the_same_conversation(gateway, tmp_path, cassettes):
    # Stateless replay: step k answers a request with k assistant messages, so turn 2's first
    # step (k=2) is reached only if the request still holds turn 1's two assistant messages.
    _cassette(cassettes, "two-turns", [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo first > results/a.txt"}}]},
        {"content": "Wrote a.txt."},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "cat results/a.txt; echo second > results/b.txt"}}]},
        {"content": "Added b.txt as you asked."},
    ])
    ctx = _context(gateway, tmp_path, "scripted/two-turns", "cl-turns")
    claw = get_claw("reference")
    claw.create_agent(ctx)
    first = claw.send_task(ctx, "Write a.txt.", 0)
    second = claw.send_task(ctx, "Now also write b.txt.", 1)
    assert (first.exit_status, second.exit_status) == ("finished", "finished")
    assert first.finish_reason == second.finish_reason == "stop" and first.success and second.success
    root = ctx.sandbox.root / "results"
    assert (root / "a.txt").read_text() == "first\n" and (root / "b.txt").read_text() == "second\n"
    turn2 = json.loads((ctx.host_dir / "transcript-turn1.json").read_text())["messages"]
    users = [m["content"] for m in turn2 if m["role"] == "user"]
    assert users == ["Write a.txt.", "Now also write b.txt."]
    assert "first" in [m for m in turn2 if m["role"] == "tool"][1]["content"]
    assert f"{ctx.workspace}/results/" in turn2[0]["content"]  # the closed-loop system prompt
    assert len(read_ledger(ctx.ledger_path)) == 4


def test_view_image_puts_the_picture_into_the_conversation(gateway, tmp_path, cassettes):
    _cassette(cassettes, "looks", [
        {"tool_calls": [{"name": "view_image", "arguments": {"path": "chart.png"}}]},
        {"match": "image(s) you asked to view", "content": "I can see the chart."},
    ])
    ctx = _context(gateway, tmp_path, "scripted/looks", "cl-look")
    (ctx.sandbox.root / "chart.png").write_bytes(CHART.read_bytes())
    claw = get_claw("reference")
    claw.create_agent(ctx)
    result = claw.send_task(ctx, "What does the chart show?", 0)
    assert result.exit_status == "finished", result.error
    shown = [m for m in claw.messages if m["role"] == "user" and isinstance(m["content"], list)]
    assert len(shown) == 1 and claw.messages.index(shown[0]) == 4  # after the tool result
    url = shown[0]["content"][1]["image_url"]["url"]
    assert base64.b64decode(url.split(",", 1)[1]) == CHART.read_bytes() and url.startswith("data:image/png;base64,")
    assert claw.messages[-1]["content"] == "I can see the chart."


def test_blind_executor_gets_the_image_models_description(gateway, tmp_path, cassettes):
    _cassette(cassettes, "blind", [
        {"tool_calls": [{"name": "view_image", "arguments": {"path": "chart.png"}}]},
        {"content": "Q3 is the peak."},
    ])
    _cassette(cassettes, "eyes", [{"content": "A bar chart: Q1 40, Q2 55, Q3 80, Q4 62."}])
    ctx = _context(gateway, tmp_path, "scripted/blind", "cl-blind", image_model="scripted/eyes")
    (ctx.sandbox.root / "chart.png").write_bytes(CHART.read_bytes())
    claw = get_claw("reference", {"vision": "image_model"})
    claw.create_agent(ctx)
    assert claw.send_task(ctx, "Which quarter peaks?", 0).exit_status == "finished"
    tool_output = next(m["content"] for m in claw.messages if m["role"] == "tool")
    assert "Q3 80" in tool_output and "described by a vision model" in tool_output
    assert not any(isinstance(m["content"], list) for m in claw.messages)  # no image for a blind model
    models = [(r.role, r.model) for r in read_ledger(ctx.ledger_path)]
    assert ("executor", "scripted/eyes") in models and models.count(("executor", "scripted/blind")) == 2


def test_view_image_refuses_what_is_not_a_picture(gateway, tmp_path, cassettes):
    _cassette(cassettes, "notimg", [
        {"tool_calls": [{"name": "view_image", "arguments": {"path": "notes.txt"}},
                        {"name": "view_image", "arguments": {"path": "missing.png"}}]},
        {"content": "ok"},
    ])
    ctx = _context(gateway, tmp_path, "scripted/notimg", "cl-notimg")
    (ctx.sandbox.root / "notes.txt").write_text("hello")
    claw = get_claw("reference")
    claw.create_agent(ctx)
    claw.send_task(ctx, "Look.", 0)
    outputs = [m["content"] for m in claw.messages if m["role"] == "tool"]
    assert outputs[0].startswith("error: notes.txt is not an image") and "no such file missing.png" in outputs[1]
