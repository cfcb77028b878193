"""Recording a run through the gateway yields a cassette that replays it offline; the minimal
Responses API maps onto chat completions (text, function calls, streaming events)."""

from __future__ import annotations

import httpx
import openai

from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.server import GatewayConfig, GatewayServer

USER = [{"role": "user", "content": "fix the failing test"}]
AFTER_TOOL = USER + [{"role": "assistant", "content": "Running the tests."},
                     {"role": "tool", "tool_call_id": "call_0_0", "content": "1 passed"}]


def two_turns(gw: GatewayServer, attempt: str) -> tuple[dict, str]:
    sdk = openai.OpenAI(base_url=gw.base_url(attempt, "executor"), api_key="unused", max_retries=0)
    first = sdk.chat.completions.create(model="any", messages=USER).model_dump()
    stream = sdk.chat.completions.create(model="any", messages=AFTER_TOOL, stream=True)
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    return first["choices"][0]["message"]["tool_calls"][0]["function"], text


def test_recorded_cassette_replays_the_run(tmp_path, monkeypatch):
    record_dir = tmp_path / "recorded"
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path, record_dir=record_dir)) as gw:
        gw.register_attempt("live1", model="scripted/gateway-test")  # stands in for a real model
        live = two_turns(gw, "live1")
        monkeypatch.setenv("CLAWMARK_CASSETTES", str(record_dir))
        gw.register_attempt("replay1", model="scripted/live1")
        replayed = two_turns(gw, "replay1")
    assert (record_dir / "live1.yaml").is_file()
    assert replayed == live and live[1] == "All tests pass."
    tokens = lambda a: [(r.input_tokens, r.cached_tokens, r.output_tokens) for r in read_ledger(gw.ledger_path(a))]  # noqa: E731
    assert tokens("replay1") == tokens("live1") == [(1000, 800, 50), (1200, 1000, 20)]


def test_responses_api_text_and_function_call(tmp_path):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path)) as gw:
        gw.register_attempt("r1", model="scripted/gateway-test")
        sdk = openai.OpenAI(base_url=gw.base_url("r1", "executor"), api_key="unused", max_retries=0)
        tools = [{"type": "function", "name": "bash", "parameters": {"type": "object", "properties": {}}}]
        first = sdk.responses.create(model="any", input="fix the failing test", tools=tools)
        call = next(item for item in first.output if item.type == "function_call")
        follow_up = [{"role": "user", "content": "fix the failing test"},
                     {"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
                     {"type": "function_call_output", "call_id": call.call_id, "output": "1 passed"}]
        events = list(sdk.responses.create(model="any", input=follow_up, tools=tools, stream=True))
        refused = httpx.post(gw.base_url("r1", "executor") + "/responses",
                             json={"input": "x", "previous_response_id": "resp_1"})
    assert call.name == "bash" and first.usage.input_tokens_details.cached_tokens == 800
    assert events[-1].type == "response.completed"
    assert events[-1].response.output_text == "All tests pass."
    assert refused.status_code == 400
    assert len(read_ledger(gw.ledger_path("r1"))) == 2


def test_responses_input_as_codex_sends_it_maps_onto_chat():
    """Codex CLI 0.120.0's shapes: a developer message, input_text parts, a view_image output that
    is a list of parts, reasoning items and a web_search tool chat cannot carry, reasoning effort."""
    from clawmark.gateway.responses_api import chat_request, to_chat_messages, to_chat_tools

    pixel = "data:image/png;base64,iVBORw0KGgo="
    body = {"instructions": "You are Codex.", "reasoning": {"effort": "high"}, "input": [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "sandbox: none"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "judge"},
                                                         {"type": "input_image", "image_url": pixel}]},
        {"type": "reasoning", "summary": [], "encrypted_content": "opaque"},
        {"type": "function_call", "name": "view_image", "arguments": "{\"path\": \"a.png\"}", "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": [{"type": "input_image", "image_url": pixel}]},
    ]}
    messages = to_chat_messages(body)
    assert [m["role"] for m in messages] == ["system", "system", "user", "assistant", "tool", "user"]
    assert messages[1]["content"] == "sandbox: none"  # text stays a string
    assert messages[2]["content"] == [{"type": "text", "text": "judge"},
                                      {"type": "image_url", "image_url": {"url": pixel}}]
    assert messages[3]["tool_calls"][0]["function"]["name"] == "view_image"
    assert messages[5]["content"][-1] == {"type": "image_url", "image_url": {"url": pixel}}
    tools = [{"type": "function", "name": "exec_command", "parameters": {"type": "object"}}, {"type": "web_search"}]
    assert [t["function"]["name"] for t in to_chat_tools(tools)] == ["exec_command"]
    assert chat_request(body)["reasoning_effort"] == "high"
    assert "reasoning_effort" not in chat_request({**body, "reasoning": {"effort": "none"}})
