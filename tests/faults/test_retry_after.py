"""Retry-After through the gateway's litellm path, from the provider's side (a fake provider on
loopback): a wait the client may make is honoured to the second and the refused tries cost
nothing; a wait longer than the client's longest backoff ends the call at once, typed
rate_limited (HTTP 429 to the claw), rather than retrying before the provider allows."""

from __future__ import annotations

import httpx

from clawmark.gateway.client import ClientConfig
from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.prices import Price
from clawmark.gateway.server import GatewayConfig, GatewayServer
from tests.support.fake_upstream import FakeUpstream, UpstreamThread

PRICE = Price(input=1.0, output=2.0)


def _call(tmp_path, upstream: FakeUpstream, config: ClientConfig) -> tuple[httpx.Response, list]:
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path, client=config)) as gateway:
        route = gateway.register_attempt("a1", model="hosted_vllm/limited", params={"api_base": upstream.base_url},
                                         fallback_price=PRICE, budget_usd=1.0, require_token=True)
        response = httpx.post(f"{gateway.base_url('a1', 'executor')}/chat/completions", timeout=60,
                              headers={"authorization": f"Bearer {route.token}"},
                              json={"messages": [{"role": "user", "content": "hi"}]})
        return response, read_ledger(gateway.ledger_path("a1"))


def test_retry_after_is_waited_to_the_second_and_refused_tries_cost_nothing(tmp_path):
    with UpstreamThread(FakeUpstream(refuse=2, retry_after_s=1.5)) as upstream:
        response, ledger = _call(tmp_path, upstream, ClientConfig(backoff_base_s=0.05, backoff_max_s=5))
    assert response.status_code == 200
    assert upstream.statuses == [429, 429, 200]
    gaps = [b - a for a, b in zip(upstream.arrivals, upstream.arrivals[1:])]
    assert min(gaps) >= 1.49, gaps
    (line,) = ledger
    assert (line.status, line.retries) == ("ok", 2)
    assert round(line.cost_usd, 9) == round((1000 * 1.0 + 20 * 2.0) / 1e6, 9)  # the answered call only


def test_a_retry_after_past_the_longest_backoff_ends_the_call_typed(tmp_path):
    with UpstreamThread(FakeUpstream(refuse=10, retry_after_s=120)) as upstream:
        response, ledger = _call(tmp_path, upstream, ClientConfig(backoff_base_s=0.05, backoff_max_s=5))
    assert response.status_code == 429
    assert response.json()["error"]["type"] == "rate_limited"
    assert upstream.statuses == [429]  # not retried early
    (line,) = ledger
    assert (line.status, line.retries, line.cost_usd) == ("rate_limited", 0, 0.0)
