"""Attempt isolation at the gateway (issue 12 part 1): each registered attempt gets a random
bearer token; a call without it is refused 401, with another attempt's 403 — before any upstream
call or ledger line; the gateway listens on the addresses it is given, never on every interface."""

from __future__ import annotations

import socket

import httpx
import pytest

from clawmark.gateway.http_chat import chat_completion
from clawmark.gateway.errors import AuthError
from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.server import GatewayConfig, GatewayServer
from tests.support.gateway_fakes import FakeUpstream

BODY = {"model": "x", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
def upstream():
    with FakeUpstream() as fake:
        yield fake


@pytest.fixture
def gateway(tmp_path):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path)) as gw:
        yield gw


def _register(gw, attempt, upstream, tmp_path):
    return gw.register_attempt(attempt, model="openai/gpt-4o-mini", params={"api_base": upstream.base_url},
                               ledger_path=tmp_path / f"{attempt}.jsonl", require_token=True)


def _post(gw, attempt, headers, path="chat/completions"):
    return httpx.post(f"{gw.base_url(attempt, 'executor')}/{path}", json=BODY, headers=headers, timeout=30)


def test_tokens_are_random_and_per_attempt(gateway, upstream, tmp_path):
    a, b = _register(gateway, "iso-a", upstream, tmp_path), _register(gateway, "iso-b", upstream, tmp_path)
    assert a.token != b.token and len(a.token) >= 43  # 32 random bytes, url-safe


def test_the_right_token_is_served_as_bearer_or_x_api_key(gateway, upstream, tmp_path):
    route = _register(gateway, "iso-ok", upstream, tmp_path)
    reply = chat_completion(gateway.base_url("iso-ok", "executor"), "x", BODY["messages"], token=route.token)
    assert reply["choices"][0]["message"]["content"] == "hello from upstream"
    assert _post(gateway, "iso-ok", {"x-api-key": route.token}).status_code == 200
    assert len(read_ledger(tmp_path / "iso-ok.jsonl")) == 2 and len(upstream.requests) == 2


def test_no_token_or_another_attempts_token_reaches_nothing(gateway, upstream, tmp_path):
    _register(gateway, "iso-victim", upstream, tmp_path)
    thief = _register(gateway, "iso-thief", upstream, tmp_path)
    missing = _post(gateway, "iso-victim", {})
    stolen = _post(gateway, "iso-victim", {"Authorization": f"Bearer {thief.token}"})
    models = httpx.get(f"{gateway.base_url('iso-victim', 'executor')}/models", timeout=30)
    assert (missing.status_code, stolen.status_code, models.status_code) == (401, 403, 401)
    assert stolen.json()["error"]["type"] == "authentication_error"
    with pytest.raises(AuthError):
        chat_completion(gateway.base_url("iso-victim", "executor"), "x", BODY["messages"], token="guess")
    assert upstream.requests == [] and read_ledger(tmp_path / "iso-victim.jsonl") == []


def test_unregistered_attempts_are_refused_unless_asked(gateway, upstream, tmp_path):
    assert _post(gateway, "nobody", {}).status_code == 404
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path / "open", allow_unregistered=True)) as open_gw:
        body = {"model": "scripted/demo", "messages": BODY["messages"]}
        reply = httpx.post(f"{open_gw.base_url('anyone', 'executor')}/chat/completions", json=body, timeout=30)
        assert reply.status_code == 200  # open mode: explicitly asked for, no token


def test_the_gateway_listens_on_its_addresses_only(tmp_path):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path, host="127.0.0.1", also_hosts=["127.0.0.2"])) as gw:
        for host in ("127.0.0.1", "127.0.0.2"):
            assert httpx.get(f"http://{host}:{gw.port}/healthz", timeout=10).status_code == 200
        with pytest.raises(OSError):  # not bound on another address of the machine
            socket.create_connection(("127.0.0.3", gw.port), timeout=2).close()
