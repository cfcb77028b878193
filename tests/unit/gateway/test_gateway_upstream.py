"""The gateway's own upstream path (a claw's call, relayed by the gateway to a fake provider over
real HTTP), both through the direct OpenAI-compatible passthrough and through litellm: 429 with
Retry-After then 200 is retried after waiting, 401 is not retried and reaches the claw as 401,
a stream without usage is recorded with cost NaN (missing, not zero)."""

from __future__ import annotations

import math
import time

import httpx
import pytest

from clawmark.gateway.client import ClientConfig
from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.prices import Price
from clawmark.gateway.server import GatewayConfig, GatewayServer
from tests.support.gateway_fakes import FakeUpstream

BODY = {"model": "ignored", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture(params=["passthrough", "litellm"])
def path(request, monkeypatch):
    monkeypatch.setenv("CLAWMARK_GATEWAY_PASSTHROUGH", "1" if request.param == "passthrough" else "0")
    return request.param


def serve(tmp_path, upstream: FakeUpstream) -> GatewayServer:
    config = GatewayConfig(ledger_dir=tmp_path, client=ClientConfig(backoff_base_s=0.05, max_retries=3, timeout_s=10))
    gw = GatewayServer(config).start()
    gw.register_attempt("u1", model="openai/fake", params={"api_base": upstream.base_url, "api_key": "sk-fake"})
    return gw


def test_429_then_200_is_retried_after_retry_after(tmp_path, path):
    with FakeUpstream([(429, {"Retry-After": "1"})]) as upstream:
        gw = serve(tmp_path, upstream)
        started = time.monotonic()
        reply = httpx.post(gw.base_url("u1", "executor") + "/chat/completions", json=BODY, timeout=30)
        elapsed = time.monotonic() - started
        gw.stop()
    assert reply.status_code == 200 and reply.json()["choices"][0]["message"]["content"] == "hello from upstream"
    assert len(upstream.requests) == 2 and elapsed >= 1.0
    assert upstream.requests[0]["model"] == "fake"
    [record] = read_ledger(gw.ledger_path("u1"))
    assert record.retries == 1 and record.status == "ok" and record.cached_tokens == 600


def test_401_is_not_retried_and_reaches_the_claw(tmp_path, path):
    with FakeUpstream([(401, {}), (401, {})]) as upstream:
        gw = serve(tmp_path, upstream)
        reply = httpx.post(gw.base_url("u1", "executor") + "/chat/completions", json=BODY | {"stream": True}, timeout=30)
        gw.stop()
    assert reply.status_code == 401 and reply.json()["error"]["type"] == "auth_error"
    assert len(upstream.requests) == 1
    assert read_ledger(gw.ledger_path("u1"))[0].status == "auth_error"


def test_stream_without_usage_costs_nan_not_zero(tmp_path):
    with FakeUpstream(stream_usage=False) as upstream:
        gw = serve(tmp_path, upstream)
        reply = httpx.post(gw.base_url("u1", "executor") + "/chat/completions", json=BODY | {"stream": True}, timeout=30)
        gw.stop()
    assert reply.status_code == 200 and reply.text.rstrip().endswith("data: [DONE]")
    [record] = read_ledger(gw.ledger_path("u1"))
    assert record.status == "ok" and math.isnan(record.cost_usd)
    assert Price(input=1, output=1).cached_input is None  # unset cache price falls back to input price


def test_slow_upstream_hits_the_call_timeout(tmp_path, path):
    config = GatewayConfig(ledger_dir=tmp_path, client=ClientConfig(timeout_s=0.5, max_retries=0))
    with GatewayServer(config) as gw:
        gw.register_attempt("slow", model="scripted/gateway-test")
        body = {"messages": [{"role": "user", "content": "slow please"}], "stream": True}
        reply = httpx.post(gw.base_url("slow", "executor") + "/chat/completions", json=body, timeout=30)
    assert reply.status_code == 503 and reply.json()["error"]["type"] == "upstream_unavailable"
    assert read_ledger(gw.ledger_path("slow"))[0].status == "upstream_unavailable"


def test_streamed_tool_call_with_usage_on_both_paths(tmp_path, path):
    import litellm

    with GatewayServer(GatewayConfig(ledger_dir=tmp_path)) as gw:
        gw.register_attempt("s1", model="scripted/gateway-test")
        chunks = list(litellm.completion(model="openai/any", api_base=gw.base_url("s1", "executor"), api_key="x",
                                         messages=[{"role": "user", "content": "go"}], stream=True,
                                         stream_options={"include_usage": True}, max_retries=0))
    message = litellm.stream_chunk_builder(chunks).choices[0].message
    assert message.tool_calls[0].function.name == "bash" and message.content == "Running the tests."
    assert chunks[-1].usage.prompt_tokens_details.cached_tokens == 800
    [record] = read_ledger(gw.ledger_path("s1"))
    assert (record.input_tokens, record.output_tokens, record.reasoning_tokens) == (1000, 50, 10)
