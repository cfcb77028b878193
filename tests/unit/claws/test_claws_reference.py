"""The reference claw's loop against scripted models served over real HTTP by the gateway:
tools act on a real checkout of a bundled instance; typed exits; a transcript after every step."""

from __future__ import annotations

import json

import pytest

from clawmark.claws import Budgets, ClawContext, get_claw
from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.server import GatewayConfig, GatewayServer
from tests.support.claws_host import INI, HostExecutor, checkout, instance, run_hidden_tests

F2P = ["tests/test_reader.py::test_hash_inside_value_is_kept",
       "tests/test_reader.py::test_semicolon_inside_quotes_is_kept"]


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path_factory.mktemp("ledgers"))) as server:
        yield server


def _context(gateway, tmp_path, cassette: str, attempt: str, budgets: Budgets | None = None):
    repo = checkout(instance(INI), tmp_path / "repo")
    ledger = tmp_path / "ledger.jsonl"
    gateway.register_attempt(attempt, model=f"scripted/{cassette}", ledger_path=ledger)
    return ClawContext(
        sandbox=HostExecutor(repo), attempt_id=attempt, model=f"scripted/{cassette}",
        gateway_url=gateway.base_url(attempt, "executor"), host_gateway_url=gateway.base_url(attempt, "executor"),
        ledger_path=ledger, budgets=budgets or Budgets(), workspace=str(repo), host_dir=tmp_path / "claw",
    )


def _run(ctx):
    claw = get_claw("reference")
    claw.create_agent(ctx)
    return claw.send_task(ctx, "Fix the issue: passwords with '#' are truncated.", 0)


def test_cassette_fix_is_applied_and_passes_the_hidden_tests(gateway, tmp_path):
    ctx = _context(gateway, tmp_path, f"ref-{INI}", "ref-ok")
    claw = get_claw("reference")
    claw.create_agent(ctx)
    result = claw.send_task(ctx, "Fix the issue: passwords with '#' are truncated.", 0)
    assert (result.exit_status, result.finish_reason, result.success) == ("submitted", "stop", True)
    tests = run_hidden_tests(instance(INI), ctx.sandbox.root, F2P)
    assert tests.returncode == 0, tests.stdout
    records = read_ledger(ctx.ledger_path)
    assert [r.role for r in records] == ["executor"] * 5 and all(r.status == "ok" for r in records)
    own = claw.collect_usage(ctx)  # the claw's own count agrees with the ledger (the truth)
    assert (own.calls, own.input_tokens, own.output_tokens, own.cached_tokens) == (
        5, sum(r.input_tokens for r in records), sum(r.output_tokens for r in records),
        sum(r.cached_tokens for r in records))


def test_transcript_holds_every_step_and_tool_output(gateway, tmp_path):
    ctx = _context(gateway, tmp_path, f"ref-{INI}", "ref-transcript")
    result = _run(ctx)
    transcript = json.loads((ctx.host_dir / "transcript-turn0.json").read_text())
    assert result.log_paths == [str(ctx.host_dir / "transcript-turn0.json")]
    assert transcript["steps"] == 5
    tool_outputs = [m["content"] for m in transcript["messages"] if m["role"] == "tool"]
    assert "COMMENT_PREFIXES = (" in tool_outputs[0] and tool_outputs[2].startswith("edited ")
    assert "'password': 'hunter#2'" in tool_outputs[3]


def test_wrong_fix_leaves_the_hidden_tests_failing(gateway, tmp_path):
    ctx = _context(gateway, tmp_path, f"ref-wrong-{INI}", "ref-wrong")
    result = _run(ctx)
    assert result.exit_status == "finished"
    assert run_hidden_tests(instance(INI), ctx.sandbox.root, F2P).returncode != 0


def test_step_limit_stops_before_the_next_call(gateway, tmp_path):
    ctx = _context(gateway, tmp_path, f"ref-{INI}", "ref-steps", Budgets(steps=2))
    result = _run(ctx)
    assert (result.exit_status, result.finish_reason, result.success) == ("step_limit", "limit", False)
    assert len(read_ledger(ctx.ledger_path)) == 2


def test_cost_limit_reads_the_gateway_ledger(gateway, tmp_path):
    ctx = _context(gateway, tmp_path, f"ref-{INI}", "ref-cost", Budgets(cost_usd=0.001))
    result = _run(ctx)
    assert result.exit_status == "cost_limit"
    assert len(read_ledger(ctx.ledger_path)) == 1  # 900 prompt tokens at $3/M already pass $0.001


def test_time_limit_makes_no_call(gateway, tmp_path):
    ctx = _context(gateway, tmp_path, f"ref-{INI}", "ref-time", Budgets(seconds=0))
    result = _run(ctx)
    assert (result.exit_status, result.timeout) == ("time_limit", True)
    assert read_ledger(ctx.ledger_path) == []


def test_model_error_is_typed_with_the_gateway_kind(gateway, tmp_path):
    ctx = _context(gateway, tmp_path, "no-such-cassette-for-claws", "ref-modelerr")
    result = _run(ctx)
    assert (result.exit_status, result.finish_reason) == ("model_error", "error")
    assert result.error_kind == "invalid_request"
    assert (ctx.host_dir / "transcript-turn0.json").exists()


def test_scripted_replay_is_deterministic(gateway, tmp_path):
    first = _context(gateway, tmp_path / "a", f"ref-{INI}", "ref-det-a")
    second = _context(gateway, tmp_path / "b", f"ref-{INI}", "ref-det-b")
    _run(first), _run(second)
    strip = lambda ctx: [m for m in json.loads((ctx.host_dir / "transcript-turn0.json").read_text())["messages"]
                         if m["role"] != "system"]
    texts = [json.dumps(strip(c)).replace(str(c.sandbox.root), "<repo>") for c in (first, second)]
    assert texts[0] == texts[1]


def test_follow_up_turn_continues_the_same_conversation(gateway, tmp_path):
    ctx = _context(gateway, tmp_path, f"ref-wrong-{INI}", "ref-followup")
    claw = get_claw("reference")
    claw.create_agent(ctx)
    first = claw.send_task(ctx, "Fix the issue.", 0)
    second = claw.send_task(ctx, "The quoted URL with ';' is still cut.", 1)
    assert (first.exit_status, second.exit_status) == ("finished", "finished")
    turn1 = json.loads((ctx.host_dir / "transcript-turn1.json").read_text())
    users = [m["content"] for m in turn1["messages"] if m["role"] == "user"]
    assert users == ["Fix the issue.", "The quoted URL with ';' is still cut."]
    assert turn1["steps"] == 2 and len(read_ledger(ctx.ledger_path)) == 4
