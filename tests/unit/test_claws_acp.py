"""The ACP client (clawmark.claws.acp) against our stand-in of ``zeroclaw acp``
(tests/fixtures/zeroclaw/zeroclaw_standin.py), which calls a real gateway on loopback with a scripted
model: session/new, session/prompt with updates, session/resume in a fresh process, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from clawmark.claws import ClawContext, get_claw
from clawmark.claws.acp import run_turn
from clawmark.gateway.ledger import read_ledger

STANDIN = Path(__file__).parents[1] / "fixtures" / "zeroclaw" / "zeroclaw_standin.py"
MODEL = "scripted/zeroclaw-clawmark-fixtures__iniparse-py-1"


@pytest.fixture
def gateway(tmp_path):
    from clawmark.gateway.server import GatewayConfig, GatewayServer

    with GatewayServer(GatewayConfig(host="127.0.0.1", ledger_dir=tmp_path / "ledgers")) as server:
        yield server


def _setup(tmp_path: Path, gateway, attempt_id: str, model: str = MODEL) -> tuple[dict[str, str], Path]:
    gateway.register_attempt(attempt_id, model=model, ledger_path=tmp_path / "ledger.jsonl")
    claw = get_claw("zeroclaw")
    ctx = ClawContext(attempt_id=attempt_id, model=model, host_dir=tmp_path / "claw", claw_home=str(tmp_path / "home"),
                      gateway_url=gateway.base_url(attempt_id, "executor", host="127.0.0.1"))
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


def test_a_provider_failure_comes_back_as_a_json_rpc_error(tmp_path, gateway, monkeypatch):
    env, repo = _setup(tmp_path, gateway, "acp-missing", model="scripted/no-such-cassette")
    result = _turn(env, repo, tmp_path, "hello", monkeypatch)
    assert (result["ok"], result["error"]["code"]) == (False, -32603)
    assert "HTTP 400" in result["error"]["message"]


def test_the_driver_script_writes_its_result_and_exit_code(tmp_path, gateway):
    env, repo = _setup(tmp_path, gateway, "acp-script", model="scripted/no-such-cassette")
    (tmp_path / "prompt.txt").write_text("hello")
    acp = Path(__file__).parents[2] / "clawmark" / "claws" / "acp.py"
    done = subprocess.run([sys.executable, str(acp), "--session-file", str(tmp_path / "s.json"), "--cwd", str(repo),
                           "--prompt-file", str(tmp_path / "prompt.txt"), "--timeout", "60", "--out",
                           str(tmp_path / "out.json"), "--", sys.executable, str(STANDIN)],
                          env={**env, "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 1 and json.loads((tmp_path / "out.json").read_text())["error"]["code"] == -32603


@pytest.mark.parametrize(("reported", "runs"), [("zeroclaw 0.8.4", True), ("zeroclaw 0.8.45", False),
                                                ("zeroclaw 0.9.0", False)])
def test_a_supplied_binary_of_another_release_is_refused(tmp_path, reported, runs):
    """The row records 0.8.4, so a binary answering another --version never gets a turn."""
    from clawmark.claws import ClawError
    from tests.unit.claws_host import HostExecutor

    binary = tmp_path / "zeroclaw"
    binary.write_text(f"#!/bin/sh\n[ \"$1\" = --version ] && echo '{reported}'\n")
    binary.chmod(0o755)
    claw = get_claw("zeroclaw", {"host_dir": str(tmp_path), "command": [str(binary), "acp"]})
    ctx = ClawContext(attempt_id="zc-version", model=MODEL, host_dir=tmp_path / "claw", gateway_url="http://x",
                      claw_home=str(tmp_path / "home"), sandbox=HostExecutor(tmp_path))
    if runs:
        claw.post_container_start(ctx)
        assert (tmp_path / "home" / "acp.py").is_file()
    else:
        with pytest.raises(ClawError, match=f"reports '{reported}'.*pinned to 0.8.4"):
            claw.post_container_start(ctx)
