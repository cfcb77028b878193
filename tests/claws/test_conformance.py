"""The conformance kit: every claw of ``tests.claws.kit.KIT_CLAWS`` — real claws, not doubles —
against scripted models through the gateway, on the patch track (bundled instance ``INI``).

Checked per claw: create agent, first turn, a follow-up turn in the same session that the claw
demonstrably sees (its follow-up request carries turn 0's messages), session backup, delete
agent; a turn past its deadline is stopped by the host and typed ``timeout``; a provider failure
(500, 401; EDICT 401 only) is a typed infra error whatever the claw's exit code; every call is in the ledger
under its attempt and role; the claw's own files never reach the patch; the claw's container has
the network it was given."""

from __future__ import annotations

import json

import pytest

from clawmark.claws import Budgets, ClawContext, get_claw
from clawmark.gateway.ledger import read_ledger
from clawmark.results import ErrorKind, Status
from clawmark.swe.environment import InstanceEnv, InstanceEnvConfig
from tests.claws.kit import (FIX_MARK, FOLLOW_UP, KIT_CLAWS, TURN0_MARK, claw_param, claw_paths_in_patch,
                             follow_up_request, texts)
from tests.support.attempt_fixtures import INI, INSTANCES

pytestmark = pytest.mark.docker


def _attempt(kit_claw, model, store, gateway, **config):
    from clawmark.attempts.patch import PatchAttemptConfig, run_patch_attempt

    from clawmark.claws.profiles import ProfileUse

    return run_patch_attempt(INSTANCES[INI], kit_claw.name, model, 0, store, "kit", gateway,
                             config=PatchAttemptConfig(claw_settings=kit_claw.config,
                                                       profile=ProfileUse(name=kit_claw.profile), **config))


def _context(claw, attempt_id, model, gateway, tmp_path) -> ClawContext:
    from clawmark.attempts.gateway_link import container_url, host_url

    host = host_url(gateway, attempt_id, "executor")
    inside = container_url(gateway, attempt_id, "executor") if claw.runs_in_container else host
    return ClawContext(attempt_id=attempt_id, model=model, host_dir=tmp_path / "claw", gateway_url=inside,
                       host_gateway_url=host, ledger_path=tmp_path / "ledger.jsonl")


# EDICT's court is left to tests/claws/test_conformance_closed_loop.py's court follow-up, which checks
# the same continuity (the front desk's follow-up request carries its turn-0 reply) on both turns of
# the whole court: here it was eight more OpenClaw runs (~400 s of the suite) for the same evidence.
@pytest.mark.parametrize("kit_claw", [c for c in KIT_CLAWS if c.name != "edict-3role"], ids=str)
def test_follow_up_turn_continues_the_same_session(kit_claw, provider, gateway, tmp_path):
    claw, attempt_id = kit_claw.adapter(), f"kit-turns-{kit_claw}"
    gateway.register_attempt(attempt_id, model=kit_claw.model, ledger_path=tmp_path / "ledger.jsonl")
    ctx = _context(claw, attempt_id, kit_claw.model, gateway, tmp_path)
    seen_before = len(provider.requests(kit_claw.model.split("/", 1)[1]))
    with InstanceEnv(INSTANCES[INI], InstanceEnvConfig(**claw.docker_args(ctx))) as sandbox:
        ctx.sandbox = sandbox
        claw.post_container_start(ctx)
        claw.create_agent(ctx)
        first = claw.send_task(ctx, INSTANCES[INI].problem_statement, 0)
        second = claw.send_task(ctx, FOLLOW_UP, 1)
        backup = claw.backup_session(ctx, tmp_path / "backup")
        claw.delete_agent(ctx)
    gateway.unregister_attempt(attempt_id)
    assert (first.success, second.success) == (True, True), (first.error, second.error)
    assert first.session_id == second.session_id
    requests = provider.requests(kit_claw.model.split("/", 1)[1])[seen_before:]
    index, follow_up = follow_up_request(requests)
    history = follow_up["messages"]
    assert any(INSTANCES[INI].problem_statement[:60] in text for text in texts(history, "user"))
    if kit_claw.session_keeps_tool_turns:
        assert any(TURN0_MARK in text for text in texts(history, "assistant"))
        assert any(FIX_MARK in text for text in texts(history, "tool") + texts(history, "user"))  # turn 0's tool output
    else:  # turn 0's final reply, all such a session keeps of it
        assert any(text.startswith("Fixed: a comment prefix") for text in texts(history, "assistant"))
    assert len(requests) > index + 1  # the claw went on after the follow-up's first reply
    ledger = read_ledger(tmp_path / "ledger.jsonl")
    assert len(ledger) == len(requests) and {(r.attempt_id, r.role, r.status) for r in ledger} == {
        (attempt_id, "executor", "ok")}
    assert backup and all(path.is_file() and path.stat().st_size > 0 for path in backup)


def test_patch_attempt_resolves_and_keeps_the_claws_files_out(kit_claw, provider, gateway, store):
    row = _attempt(kit_claw, kit_claw.model, store, gateway)
    layout = store.layout(row.sweep_id, row.cell_key)
    assert (row.status, row.resolved, row.error_message) == (Status.RESOLVED, True, None)
    assert row.claw_version == kit_claw.adapter().version
    assert "_strip_inline_comment" in layout.patch.read_text()
    assert claw_paths_in_patch(layout.raw_patch.read_text()) == []  # not even before cleaning
    ledger = read_ledger(layout.ledger)
    assert ledger and {(r.attempt_id, r.role) for r in ledger} == {(row.attempt_id, "executor")}
    assert row.usage["executor"].calls == len(ledger)
    assert row.usage_mismatch is None  # the claw's own usage report agrees with the ledger
    assert (row.claw_reported_input_tokens is not None) == kit_claw.reports_usage
    saved = [p for p in layout.transcript.rglob("*") if p.is_file() and p.name != "prompt.txt"]
    assert saved and all(p.stat().st_size > 0 for p in saved if p.suffix in (".json", ".jsonl"))
    if kit_claw.name == "openclaw":  # streamed calls; its backup is the session's event stream (JSONL in 2026.3)
        assert all(r.stream and r.status == "ok" for r in ledger)
        sessions = sorted(p for p in layout.transcript.rglob("*.jsonl")
                          if p.relative_to(layout.transcript).parts[0].startswith("openclaw-"))
        events = "".join(p.read_text() for p in sessions)
        assert FIX_MARK in events and '"exec"' in events, [str(p.relative_to(layout.transcript)) for p in saved]
    if kit_claw.name == "mini-swe-agent":  # the installed package is the version rows name
        traj = json.loads((layout.transcript / "traj.json").read_text())
        assert traj["info"]["mini_version"] == row.claw_version


# A profile fixes the turn's seconds (the pinned entries' 1 s budget would not hold); the deadline
# is the host's, the same for every profile.
@pytest.mark.parametrize("kit_claw", [c for c in KIT_CLAWS if c.profile == "clawmark"], ids=str)
def test_a_turn_past_its_deadline_is_stopped_and_typed_timeout(kit_claw, provider, gateway, store):
    row = _attempt(kit_claw, "scripted/kit-slow", store, gateway, budgets=Budgets(seconds=1), deadline_grace_s=2)
    layout = store.layout(row.sweep_id, row.cell_key)
    turn = json.loads((layout.logs / "turn-0.json").read_text())
    assert (turn["timeout"], turn["finish_reason"], turn["exit_status"]) == (True, "timeout", "host_deadline")
    assert turn["duration_s"] == 3  # cut at budget + grace, not after the 30 s reply
    assert (row.status, row.resolved) == (Status.EMPTY_PATCH, False)
    assert "host_deadline" in row.error_message


# EDICT types a failure from the same ledger line whatever the status, so it takes the 401 only: its
# 500 case sat through OpenClaw's own retries of the gateway's 503 (~180 s) for no other evidence.
FAILURES = [(500, "upstream_unavailable"), (401, "auth_error")]
FAILURE_CASES = [claw_param(c, code, kind, id=f"{c}-{code}-{kind}")
                 for c in KIT_CLAWS for code, kind in FAILURES if not (c.name == "edict-3role" and code == 500)]


@pytest.mark.parametrize(("kit_claw", "code", "kind"), FAILURE_CASES)
def test_a_provider_failure_is_a_typed_error_whatever_the_exit_code(kit_claw, provider, gateway, store, code,
                                                                    kind):
    row = _attempt(kit_claw, f"scripted/kit-http-{code}", store, gateway)
    layout = store.layout(row.sweep_id, row.cell_key)
    assert (row.status, row.error_kind, row.resolved) == (Status.INFRA_ERROR, ErrorKind.INFRA, None)
    assert kind in row.error_message
    ledger = read_ledger(layout.ledger)
    assert ledger and ledger[-1].status == kind and {r.attempt_id for r in ledger} == {row.attempt_id}
    turn = json.loads((layout.logs / "turn-0.json").read_text())
    if kit_claw.exits_zero_on_model_failure:
        assert turn["exit_code"] == 0 and turn["success"] is False  # typed from its output, not its exit


def test_the_claw_container_has_the_network_it_was_given(kit_claw, gateway, docker_client, tmp_path):
    from clawmark.runtime.network import gateway_network

    claw = kit_claw.adapter()
    ctx = _context(claw, "kit-net", kit_claw.model, gateway, tmp_path)
    args = claw.docker_args(ctx)
    expected = "gateway" if claw.runs_in_container else "none"
    assert args.get("network", "none") == expected
    with InstanceEnv(INSTANCES[INI], InstanceEnvConfig(**args)) as sandbox:
        networks = set(docker_client.containers.get(sandbox.container_id).attrs["NetworkSettings"]["Networks"])
    assert networks == ({gateway_network()[0]} if expected == "gateway" else {"none"})
    if expected == "gateway":  # the gateway is all it can reach: the network has no way out
        assert docker_client.networks.get(gateway_network()[0]).attrs["Internal"] is True
