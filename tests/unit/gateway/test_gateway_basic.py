"""litellm -> gateway -> scripted backend over real HTTP on 127.0.0.1: non-streaming, streaming
with a final usage chunk, tool calls, per-attempt attribution, model pinning, clear errors."""

from __future__ import annotations

import math
import threading

import httpx
import litellm
import pytest

from clawmark.gateway.ledger import read_ledger, summarize_ledger
from clawmark.gateway.server import GatewayConfig, GatewayServer

USER = [{"role": "user", "content": "fix the failing test"}]


@pytest.fixture
def gateway(tmp_path):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path, allow_unregistered=True)) as gw:
        yield gw


def call(gw, attempt, messages, **kw):
    return litellm.completion(model="openai/scripted/gateway-test", api_base=gw.base_url(attempt, "executor"),
                              api_key="unused", messages=messages, max_retries=0, **kw)


def test_non_streaming_tool_call_and_ledger_line(gateway):
    response = call(gateway, "a1", USER)
    tool_call = response.choices[0].message.tool_calls[0]
    assert tool_call.function.name == "bash" and '"pytest -q"' in tool_call.function.arguments
    assert response.choices[0].finish_reason == "tool_calls"
    [record] = read_ledger(gateway.ledger_path("a1"))
    assert (record.attempt_id, record.role, record.model) == ("a1", "executor", "scripted/gateway-test")
    assert (record.input_tokens, record.cached_tokens, record.output_tokens, record.reasoning_tokens) == (1000, 800, 50, 10)
    assert record.cost_usd == pytest.approx((200 * 3.0 + 800 * 0.3 + 50 * 15.0) / 1e6)


def test_streaming_has_final_usage_chunk_and_second_step(gateway):
    history = USER + [{"role": "assistant", "content": "Running the tests."},
                      {"role": "tool", "tool_call_id": "call_0_0", "content": "1 passed"}]
    chunks = list(call(gateway, "a2", history, stream=True, stream_options={"include_usage": True}))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "All tests pass."
    assert chunks[-1].usage.prompt_tokens == 1200
    assert chunks[-1].usage.prompt_tokens_details.cached_tokens == 1000
    [record] = read_ledger(gateway.ledger_path("a2"))
    assert record.stream and record.output_tokens == 20 and record.status == "ok"


def test_streamed_tool_call_reassembles(gateway):
    chunks = list(call(gateway, "a3", USER, stream=True))
    message = litellm.stream_chunk_builder(chunks).choices[0].message
    assert message.tool_calls[0].function.name == "bash"


def test_trigger_step_wins_over_script(gateway):
    response = call(gateway, "a4", [{"role": "user", "content": "ping please"}])
    assert response.choices[0].message.content == "pong"


def test_concurrent_attempts_are_attributed_to_their_own_ledgers(gateway):
    def run(attempt: str, n: int) -> None:
        for _ in range(n):
            call(gateway, attempt, USER)
            list(call(gateway, attempt, USER, stream=True, stream_options={"include_usage": True}))

    threads = [threading.Thread(target=run, args=(a, n)) for a, n in (("left", 3), ("right", 5))]
    [t.start() for t in threads]
    [t.join() for t in threads]
    left, right = summarize_ledger(gateway.ledger_path("left")), summarize_ledger(gateway.ledger_path("right"))
    assert left["executor"]["calls"] == 6 and right["executor"]["calls"] == 10
    assert right["executor"]["input_tokens"] == 10 * 1000
    assert {r.attempt_id for r in read_ledger(gateway.ledger_path("left"))} == {"left"}


def test_plain_http_post_like_curl_gains_a_ledger_line(gateway):
    url = gateway.base_url("demo", "executor") + "/chat/completions"
    reply = httpx.post(url, json={"model": "scripted/demo", "messages": USER}, timeout=10)
    assert reply.status_code == 200
    assert reply.json()["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "bash"
    [record] = read_ledger(gateway.ledger_path("demo"))
    assert record.input_tokens == 1200 and record.cost_usd > 0 and not math.isnan(record.cost_usd)


def test_no_matching_step_is_a_clear_400(gateway):
    messages = USER + [{"role": "assistant", "content": "x"}] * 5 + [{"role": "user", "content": "again"}]
    reply = httpx.post(gateway.base_url("a5", "executor") + "/chat/completions",
                       json={"model": "scripted/gateway-test", "messages": messages}, timeout=10)
    assert reply.status_code == 400
    assert "no step for a request with 5 assistant messages" in reply.json()["error"]["message"]
    assert read_ledger(gateway.ledger_path("a5"))[0].status == "invalid_request"


def test_discovery_probes_answer_harmlessly_and_list_the_scripted_models(gateway):
    from clawmark.settings import TASKS_CATALOG

    root = f"http://127.0.0.1:{gateway.port}"
    listed = {m["id"] for m in httpx.get(root + "/v1/models").json()["data"]}
    bundled = {f"scripted/{p.stem}" for p in (TASKS_CATALOG / "cassettes").glob("*.yaml")}
    assert bundled and bundled <= listed and "scripted/sup-en_101_sales_total" in listed
    assert httpx.get(root + "/api/v1/models").status_code == 200
    assert httpx.post(root + "/api/show", json={}).status_code == 404


def test_strict_gateway_pins_the_model_and_refuses_unknown_attempts(tmp_path):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path)) as gw:
        gw.register_attempt("pinned", model="scripted/gateway-test", ledger_path=tmp_path / "x" / "ledger.jsonl")
        body = {"model": "gpt-5-expensive", "messages": [{"role": "user", "content": "ping"}],
                "api_base": "http://evil.invalid/v1"}
        reply = httpx.post(gw.base_url("pinned", "executor") + "/chat/completions", json=body, timeout=10)
        assert reply.json()["choices"][0]["message"]["content"] == "pong"
        assert read_ledger(tmp_path / "x" / "ledger.jsonl")[0].model == "scripted/gateway-test"
        assert httpx.get(gw.base_url("pinned", "executor") + "/models").json()["data"][0]["id"] == "scripted/gateway-test"
        assert httpx.post(gw.base_url("other", "executor") + "/chat/completions", json=body).status_code == 404
        assert httpx.post(gw.base_url("..", "executor") + "/chat/completions", json=body).status_code == 404


def test_attempt_budget_stops_the_claw_with_402(tmp_path):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path)) as gw:
        gw.register_attempt("capped", model="scripted/gateway-test", budget_usd=0.005)
        url = gw.base_url("capped", "executor") + "/chat/completions"
        statuses = [httpx.post(url, json={"messages": USER}, timeout=10).status_code for _ in range(5)]
        refused = httpx.post(url, json={"messages": USER}, timeout=10).json()["error"]
    # each call costs $0.00159: the 4th starts under the cap, the 5th finds it reached
    assert statuses == [200, 200, 200, 200, 402]
    assert refused["type"] == "budget_exceeded" and "budget of $0.0050 reached" in refused["message"]
    assert [r.status for r in read_ledger(gw.ledger_path("capped"))][-2:] == ["budget_exceeded"] * 2


def test_oversized_or_malformed_bodies_are_refused(tmp_path):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path, allow_unregistered=True, max_body_bytes=1000)) as gw:
        url = gw.base_url("big", "executor") + "/chat/completions"
        huge = httpx.post(url, json={"model": "scripted/demo", "messages": [{"role": "user", "content": "x" * 2000}]})
        broken = httpx.post(url, content=b"{not json", headers={"content-type": "application/json"})
    assert huge.status_code == 413 and broken.status_code == 400
    assert not gw.ledger_path("big").exists()


def test_a_role_the_results_table_does_not_know_is_a_400(gateway):
    reply = httpx.post(gateway.base_url("a6", "planner") + "/chat/completions",
                       json={"model": "scripted/demo", "messages": USER}, timeout=10)
    assert reply.status_code == 400 and "planner" in reply.text
    assert not gateway.ledger_path("a6").exists()
