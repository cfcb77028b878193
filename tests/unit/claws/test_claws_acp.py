"""The ACP client (clawmark.claws.acp) against our stand-in of ``zeroclaw acp``
(tests/fixtures/zeroclaw/zeroclaw_standin.py), which calls a real gateway on loopback with a scripted
model: session/new, session/prompt with updates, session/resume in a fresh process, errors. The
stand-in refuses what an ACP v1 client would not send (a string prompt, no mcpServers), so every
turn here that succeeds is one the client sent in v1's shapes; a stand-in's rows are labelled."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from clawmark.claws import Budgets, ClawContext, get_claw
from clawmark.claws.acp import run_turn
from clawmark.gateway.ledger import read_ledger
from tests.support.paths import FIXTURES, REPO

STANDIN = FIXTURES / "zeroclaw" / "zeroclaw_standin.py"
MODEL = "scripted/zeroclaw-clawmark-fixtures__iniparse-py-1"


@pytest.fixture
def gateway(tmp_path):
    from clawmark.gateway.server import GatewayConfig, GatewayServer

    with GatewayServer(GatewayConfig(host="127.0.0.1", ledger_dir=tmp_path / "ledgers")) as server:
        yield server


def _setup(tmp_path: Path, gateway, attempt_id: str, model: str = MODEL,
           steps: int = 300) -> tuple[dict[str, str], Path]:
    gateway.register_attempt(attempt_id, model=model, ledger_path=tmp_path / "ledger.jsonl")
    claw = get_claw("zeroclaw")
    ctx = ClawContext(attempt_id=attempt_id, model=model, host_dir=tmp_path / "claw", claw_home=str(tmp_path / "home"),
                      gateway_url=gateway.base_url(attempt_id, "executor", host="127.0.0.1"),
                      budgets=Budgets(steps=steps))
    config_dir = tmp_path / "home" / "zeroclaw"
    config_dir.mkdir(parents=True)
    (config_dir / "config.toml").write_text(claw.config_toml(ctx))
    repo = tmp_path / "repo"
    (repo / "iniparse").mkdir(parents=True)
    return {"ZEROCLAW_CONFIG_DIR": str(config_dir)}, repo


def _turn(env, repo, tmp_path, prompt, monkeypatch):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return run_turn([sys.executable, str(STANDIN)], session_file=tmp_path / "session.json", cwd=str(repo),
                    prompt=prompt, timeout_s=60, agent="clawmark")


def test_a_first_turn_then_a_resumed_follow_up_in_a_fresh_process(tmp_path, gateway, monkeypatch):
    env, repo = _setup(tmp_path, gateway, "acp-turns")
    (repo / "iniparse" / "__init__.py").write_text("def parse(text):\n    return text\n")  # enough for the cassette
    first = _turn(env, repo, tmp_path, "Password containing '#' gets silently truncated", monkeypatch)
    second = _turn(env, repo, tmp_path, "Thanks. Please also keep tabs working as separators.", monkeypatch)
    assert (first["ok"], first["resumed"], first["stopReason"]) == (True, False, "end_turn"), first
    assert first["updates"]["toolCalls"] == ["shell", "shell"]  # the grep, then the edit (no reader.py here)
    assert (second["ok"], second["resumed"], second["sessionId"]) == (True, True, first["sessionId"]), second
    assert second["content"].startswith("Tabs count as whitespace already")  # the cassette saw turn 1's history
    assert len(read_ledger(tmp_path / "ledger.jsonl")) == 5


def test_the_step_limit_reaches_zeroclaw_through_its_runtime_profile(tmp_path, gateway, monkeypatch):
    """ZeroClaw 0.8.4 reads max_tool_iterations from the agent's runtime profile only."""
    import tomllib

    env, repo = _setup(tmp_path, gateway, "acp-steps", steps=1)
    config = tomllib.loads((tmp_path / "home" / "zeroclaw" / "config.toml").read_text())
    profile = config["agents"]["clawmark"]["runtime_profile"]
    assert config["runtime_profiles"][profile]["max_tool_iterations"] == 1
    (repo / "iniparse" / "__init__.py").write_text("def parse(text):\n    return text\n")
    result = _turn(env, repo, tmp_path, "Password containing '#' gets silently truncated", monkeypatch)
    assert result["ok"] is False and "step limit" in result["error"]["message"]  # one call, then stopped
    assert len(read_ledger(tmp_path / "ledger.jsonl")) == 1


def test_a_provider_failure_comes_back_as_a_json_rpc_error(tmp_path, gateway, monkeypatch):
    env, repo = _setup(tmp_path, gateway, "acp-missing", model="scripted/no-such-cassette")
    result = _turn(env, repo, tmp_path, "hello", monkeypatch)
    assert (result["ok"], result["error"]["code"]) == (False, -32603)
    assert "HTTP 400" in result["error"]["message"]


def test_the_driver_script_writes_its_result_and_exit_code(tmp_path, gateway):
    env, repo = _setup(tmp_path, gateway, "acp-script", model="scripted/no-such-cassette")
    (tmp_path / "prompt.txt").write_text("hello")
    acp = REPO / "clawmark" / "claws" / "acp.py"
    done = subprocess.run([sys.executable, str(acp), "--session-file", str(tmp_path / "s.json"), "--cwd", str(repo),
                           "--prompt-file", str(tmp_path / "prompt.txt"), "--timeout", "60", "--out",
                           str(tmp_path / "out.json"), "--", sys.executable, str(STANDIN)],
                          env={**env, "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 1 and json.loads((tmp_path / "out.json").read_text())["error"]["code"] == -32603


def _raw_exchange(env: dict[str, str], *messages: dict) -> list[dict]:
    """The stand-in's answers to raw JSON-RPC lines (each message sent as it is)."""
    lines = "".join(json.dumps(m) + "\n" for m in messages)
    done = subprocess.run([sys.executable, str(STANDIN)], input=lines, capture_output=True, text=True,
                          env={**env, "PATH": "/usr/bin:/bin"}, timeout=60)
    return [json.loads(line) for line in done.stdout.splitlines()]


V1_INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": 1, "clientCapabilities": {}}}


@pytest.mark.parametrize(("method", "params", "complaint"), [
    ("session/new", {"cwd": "/repo"}, "mcpServers"),
    ("session/new", {"cwd": "repo", "mcpServers": []}, "absolute `cwd`"),
    ("session/resume", {"sessionId": "s-1", "cwd": "/repo"}, "mcpServers"),
    ("session/prompt", {"sessionId": "s-1", "prompt": "hello"}, "list of content blocks"),
    ("session/prompt", {"sessionId": "s-1", "prompt": [{"text": "hello"}]}, "`type`"),
    ("initialize", {"protocolVersion": 1}, "clientCapabilities"),
])
def test_the_standin_refuses_messages_outside_acp_v1(tmp_path, gateway, method, params, complaint):
    env, _ = _setup(tmp_path, gateway, "acp-strict")
    answers = _raw_exchange(env, V1_INIT, {"jsonrpc": "2.0", "id": 2, "method": method, "params": params})
    assert answers[0]["result"]["protocolVersion"] == 1  # a v1 initialize is answered
    assert answers[1]["error"]["code"] == -32602 and complaint in answers[1]["error"]["message"], answers[1]


def test_the_client_sends_v1_shapes(tmp_path, gateway, monkeypatch):
    """What the stand-in accepted is what a 0.8.4 client sends: content blocks and mcpServers."""
    from clawmark.claws.acp import CLIENT_CAPABILITIES, text_prompt

    env, repo = _setup(tmp_path, gateway, "acp-shapes")
    new = {"cwd": str(repo), "mcpServers": [], "agentAlias": "clawmark"}
    init = {**V1_INIT, "params": {"protocolVersion": 1, "clientCapabilities": CLIENT_CAPABILITIES}}
    answers = _raw_exchange(env, init, {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": new})
    assert "sessionId" in answers[1]["result"]
    assert text_prompt("hi") == [{"type": "text", "text": "hi"}]
    result = _turn(env, repo, tmp_path, "hello", monkeypatch)  # scripted/no cassette: the prompt got past the checks
    assert result["sessionId"] and result.get("error", {}).get("code") != -32602


STANDIN_VERSION = "zeroclaw 0.8.4 (clawmark stand-in: ACP only)"


@pytest.mark.parametrize(("reported", "standin", "refusal"), [
    ("zeroclaw 0.8.4", False, None), ("zeroclaw 0.8.45", False, "pinned to 0.8.4"),
    ("zeroclaw 0.9.0", False, "pinned to 0.8.4"), (STANDIN_VERSION, True, None),
    (STANDIN_VERSION, False, "set standin: true"), ("zeroclaw 0.8.4", True, "set standin: false")])
def test_a_supplied_binary_of_another_release_or_kind_is_refused(tmp_path, reported, standin, refusal):
    """The row records 0.8.4 (0.8.4-standin for a stand-in), so a binary answering another
    --version, or a stand-in run as the real binary (and the reverse), never gets a turn."""
    from clawmark.claws import ClawError
    from tests.support.claws_host import HostExecutor

    binary = tmp_path / "zeroclaw"
    binary.write_text(f"#!/bin/sh\n[ \"$1\" = --version ] && echo '{reported}'\n")
    binary.chmod(0o755)
    claw = get_claw("zeroclaw", {"host_dir": str(tmp_path), "command": [str(binary), "acp"], "standin": standin})
    assert claw.version == ("0.8.4-standin" if standin else "0.8.4") == claw.settings()["version"]
    ctx = ClawContext(attempt_id="zc-version", model=MODEL, host_dir=tmp_path / "claw", gateway_url="http://x",
                      claw_home=str(tmp_path / "home"), sandbox=HostExecutor(tmp_path))
    if refusal is None:
        claw.post_container_start(ctx)
        assert (tmp_path / "home" / "acp.py").is_file()
    else:
        with pytest.raises(ClawError, match=refusal):
            claw.post_container_start(ctx)
