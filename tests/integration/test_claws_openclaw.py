"""OpenClaw, the real npm package, running inside the instance container against a scripted model
through the gateway: a graded patch attempt, and two turns of one session."""

from __future__ import annotations

import json

import pytest

from clawmark.claws import ClawContext, get_claw
from clawmark.gateway.ledger import read_ledger
from clawmark.results import Status
from clawmark.swe.environment import InstanceEnv, InstanceEnvConfig
from tests.integration.attempt_support import INI, INSTANCES, attempt, gateway, store  # noqa: F401

pytestmark = pytest.mark.docker
MODEL = f"scripted/oc-{INI}"


def test_openclaw_fix_is_extracted_resolves_and_its_usage_matches_the_ledger(store, gateway):  # noqa: F811
    row = attempt(INI, "openclaw", MODEL, store, gateway)
    layout = store.layout(row.sweep_id, row.cell_key)
    assert (row.status, row.resolved, row.error_message) == (Status.RESOLVED, True, None)
    assert "_strip_inline_comment" in layout.patch.read_text()
    assert "SOUL.md" not in layout.patch.read_text()  # its persona workspace stays in the claw home
    turn = json.loads((layout.logs / "turn-0.json").read_text())
    assert (turn["finish_reason"], turn["exit_status"]) == ("stop", "stop")
    ledger = read_ledger(layout.ledger)
    assert len(ledger) == 3 and all(r.stream and r.status == "ok" for r in ledger)  # streamed, usage chunk read
    claimed = json.loads((layout.logs / "claw-usage.json").read_text())
    assert claimed["input_tokens"] == sum(r.input_tokens for r in ledger)
    assert claimed["output_tokens"] == sum(r.output_tokens for r in ledger)
    assert claimed["cost_usd"] == pytest.approx(sum(r.cost_usd for r in ledger), rel=0.01)  # priced like the gateway
    assert (row.claw_reported_input_tokens, row.usage_mismatch) == (claimed["input_tokens"], None)  # in the row
    events = (layout.transcript / "openclaw-trajectory-main" / "events.jsonl").read_text()
    assert "COMMENT_PREFIXES" in events and '"name":"exec"' in events  # the backup holds its tool calls


def test_follow_up_turn_continues_the_same_session(gateway, tmp_path):  # noqa: F811
    from clawmark.attempts.gateway_link import container_url

    claw, attempt_id = get_claw("openclaw"), "openclaw-turns"
    gateway.register_attempt(attempt_id, model=MODEL, ledger_path=tmp_path / "ledger.jsonl")
    ctx = ClawContext(attempt_id=attempt_id, model=MODEL, host_dir=tmp_path / "claw", ledger_path=tmp_path / "ledger.jsonl",
                      gateway_url=container_url(gateway, attempt_id, "executor"))
    with InstanceEnv(INSTANCES[INI], InstanceEnvConfig(**claw.docker_args(ctx))) as sandbox:
        ctx.sandbox = sandbox
        claw.post_container_start(ctx)
        claw.create_agent(ctx)
        first = claw.send_task(ctx, INSTANCES[INI].problem_statement, 0)
        second = claw.send_task(ctx, "Thanks. Please also keep tabs working as separators.", 1)
    assert (first.success, second.success) == (True, True), second.error
    # The cassette answers the follow-up only when its request carries turn 1's three replies.
    reply = json.loads((ctx.host_dir / "openclaw-turn1.json").read_text())["meta"]["finalAssistantVisibleText"]
    assert reply.startswith("Tabs count as whitespace already")
    assert len(read_ledger(tmp_path / "ledger.jsonl")) == 5  # 3 calls, then 2 in the follow-up
    assert claw.collect_usage(ctx).calls == 5
