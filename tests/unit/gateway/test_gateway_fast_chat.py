"""The chat endpoint served in front of FastAPI (clawmark/gateway/fast_chat.py): a client that
hangs up mid-stream leaves one ledger line, abandoned with an unknown cost, and the upstream
stream is let go; the typed errors keep their statuses and bodies; other endpoints still answer."""

from __future__ import annotations

import math
import socket
import time

import httpx

from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.server import GatewayConfig, GatewayServer
from tests.support.fake_upstream import FakeUpstream, UpstreamThread

BODY = {"model": "x", "stream": True, "messages": [{"role": "user", "content": "go"}]}


def _hang_up_after_first_bytes(port: int, path: str) -> bytes:
    payload = httpx.Request("POST", f"http://127.0.0.1:{port}{path}", json=BODY).read()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                     f"content-length: {len(payload)}\r\n\r\n".encode() + payload)
        return sock.recv(4096)  # the status line and the first batch, then the socket is closed


def test_a_client_hanging_up_mid_stream_is_ledgered_once_as_abandoned(tmp_path):
    with UpstreamThread(FakeUpstream(drip_s=0.5)) as upstream, \
            GatewayServer(GatewayConfig(ledger_dir=tmp_path)) as gateway:
        gateway.register_attempt("cut", model="openai/dripping", params={"api_base": upstream.base_url})
        first = _hang_up_after_first_bytes(gateway.port, "/a/cut/executor/v1/chat/completions")
        deadline = time.monotonic() + 20
        while not read_ledger(tmp_path / "cut.jsonl") and time.monotonic() < deadline:
            time.sleep(0.1)
        records = read_ledger(tmp_path / "cut.jsonl")
        route_after = gateway.routes.get("cut").inflight.running
        health = httpx.get(f"http://127.0.0.1:{gateway.port}/healthz", timeout=10)
    assert first.startswith(b"HTTP/1.1 200") and b"data: " in first
    assert [r.status for r in records] == ["abandoned"] and math.isnan(records[0].cost_usd)
    assert records[0].latency_s < 4.5  # let go before the upstream's 5 s reply had ended
    assert route_after == 0 and health.json() == {"ok": True}


def test_a_streamed_reply_is_the_upstreams_own_events_and_its_connection_is_kept(tmp_path):
    """The events are relayed as the upstream wrote them (not encoded again), the reply ends with
    [DONE] once its one ledger line is written, and the upstream's stream is still read to its end,
    so the next call goes over the same connection."""
    body = BODY | {"stream_options": {"include_usage": True}}
    with UpstreamThread(FakeUpstream(drip_s=0.01)) as upstream, \
            GatewayServer(GatewayConfig(ledger_dir=tmp_path)) as gateway:
        gateway.register_attempt("raw", model="openai/fake", params={"api_base": upstream.base_url})
        url = gateway.base_url("raw", "executor") + "/chat/completions"
        replies = [httpx.post(url, json=body, timeout=10) for _ in range(2)]
        direct = httpx.post(upstream.base_url + "/chat/completions", json=body | {"model": "fake"}, timeout=10)
        records = read_ledger(tmp_path / "raw.jsonl")
    events = [[line for line in reply.text.split("\n\n") if line] for reply in replies]
    assert events[0] == events[1] == [line for line in direct.text.split("\n\n") if line]
    assert events[0][-1] == "data: [DONE]" and '"usage": {' in events[0][-2]  # the upstream's spacing, kept
    assert [r.status for r in records] == ["ok", "ok"] and records[0].output_tokens > 0
    assert upstream.peers[0] == upstream.peers[1]


def test_typed_errors_keep_their_status_and_body(tmp_path):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path, require_tokens=True)) as gateway:
        route = gateway.register_attempt("t1", model="scripted/gateway-test")
        url = gateway.base_url("t1", "executor") + "/chat/completions"
        unknown = httpx.post(gateway.base_url("nobody", "executor") + "/chat/completions", json=BODY, timeout=10)
        no_token = httpx.post(url, json=BODY, timeout=10)
        not_json = httpx.post(url, content=b"{", headers={"authorization": f"Bearer {route.token}"}, timeout=10)
        models = httpx.get(gateway.base_url("t1", "executor") + "/models",
                           headers={"authorization": f"Bearer {route.token}"}, timeout=10)
        gateway.close_attempt("t1")
        closed = httpx.post(url, json=BODY, headers={"authorization": f"Bearer {route.token}"}, timeout=10)
    assert (unknown.status_code, unknown.json()["error"]["type"]) == (404, "not_found")
    assert (no_token.status_code, no_token.json()["error"]["type"]) == (401, "authentication_error")
    assert (not_json.status_code, not_json.json()["error"]["type"]) == (400, "invalid_request_error")
    assert (closed.status_code, closed.json()["error"]["type"]) == (410, "attempt_closed")
    assert models.status_code == 200 and models.json()["data"][0]["id"] == "scripted/gateway-test"
