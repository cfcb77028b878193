"""A minimal OpenAI Responses API over chat completions, for claws that only speak it and for the
agentic judge (the Codex CLI 0.120.0: `store: false`, streamed, the whole input every request,
`exec_command` / `view_image` function tools, a `web_search` tool no chat model can run, reasoning
as `reasoning.effort`). Stateless: `previous_response_id` is refused (send the whole input).
Images (`input_image` parts, or a tool output that is a list of parts, as `view_image` returns)
become chat image parts; a tool's images follow its tool message as a user message, since chat
tool messages carry text only. Input items chat has no place for (reasoning, web search calls)
are dropped. Streaming replays the finished reply as Responses events (text deltas, function
calls, response.completed)."""

from __future__ import annotations

import json
import time
import uuid
from typing import Iterator

from fastapi.responses import JSONResponse, StreamingResponse

from clawmark.gateway import client, replay
from clawmark.gateway.cassettes import content_text
from clawmark.gateway.errors import InvalidRequest
from clawmark.jsontypes import JsonValue


def to_chat_messages(body: dict) -> list[dict]:
    messages: list[dict] = [{"role": "system", "content": body["instructions"]}] if body.get("instructions") else []
    items = body.get("input") or []
    for item in [{"role": "user", "content": items}] if isinstance(items, str) else items:
        kind = item.get("type", "message")
        if kind == "message":
            role = "system" if item.get("role") == "developer" else item.get("role", "user")
            messages.append({"role": role, "content": chat_content(item.get("content"))})
        elif kind == "function_call":
            call = {"id": item["call_id"], "type": "function",
                    "function": {"name": item["name"], "arguments": item.get("arguments") or "{}"}}
            if messages and messages[-1]["role"] == "assistant" and messages[-1].get("tool_calls") is not None:
                messages[-1]["tool_calls"].append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output", "")
            images = image_parts(output)
            messages.append({"role": "tool", "tool_call_id": item["call_id"],
                             "content": content_text(output) if isinstance(output, list) else str(output)})
            if images:
                messages.append({"role": "user", "content": [{"type": "text", "text": "Image from the tool call:"},
                                                              *images]})
    return messages


def chat_content(content: object) -> str | list[dict]:
    """Text stays a string (what cassettes and prompt caches match); parts with images become chat parts."""
    images = image_parts(content)
    if not images:
        return content_text(content)
    texts = [{"type": "text", "text": p["text"]} for p in content if isinstance(p, dict) and p.get("text")]
    return [*texts, *images]


def image_parts(content: object) -> list[dict]:
    """The `input_image` parts of a Responses content list, as chat `image_url` parts."""
    if not isinstance(content, list):
        return []
    return [{"type": "image_url", "image_url": {"url": url if isinstance(url, str) else url.get("url", "")}}
            for p in content if isinstance(p, dict) and p.get("type") == "input_image"
            and (url := p.get("image_url"))]


def to_chat_tools(tools: list[dict] | None) -> list[dict] | None:
    functions = [t for t in tools or [] if t.get("type") == "function"]
    return [{"type": "function", "function": {k: t[k] for k in ("name", "description", "parameters") if k in t}}
            for t in functions] or None


def to_response(chat: dict, model: str) -> dict:
    message = (chat.get("choices") or [{}])[0].get("message") or {}
    output: list[dict] = []
    if message.get("content"):
        output.append({"type": "message", "id": f"msg_{uuid.uuid4().hex[:16]}", "status": "completed",
                       "role": "assistant",
                       "content": [{"type": "output_text", "text": message["content"], "annotations": []}]})
    for call in message.get("tool_calls") or []:
        output.append({"type": "function_call", "id": f"fc_{uuid.uuid4().hex[:16]}", "call_id": call["id"],
                       "name": call["function"]["name"], "arguments": call["function"]["arguments"],
                       "status": "completed"})
    usage = chat.get("usage") or {}
    return {"id": f"resp_{uuid.uuid4().hex[:20]}", "object": "response", "created_at": int(time.time()),
            "status": "completed", "model": model, "output": output, "usage": {
                "input_tokens": usage.get("prompt_tokens", 0), "output_tokens": usage.get("completion_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
                "input_tokens_details": {"cached_tokens": (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0},
                "output_tokens_details": {
                    "reasoning_tokens": (usage.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0}}}


def stream_events(response: dict) -> Iterator[bytes]:
    def event(kind: str, **data: JsonValue) -> bytes:
        return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()

    yield event("response.created", response={**response, "status": "in_progress", "output": []})
    for index, item in enumerate(response["output"]):
        yield event("response.output_item.added", output_index=index, item=item)
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield event("response.output_text.delta", item_id=item["id"], output_index=index, content_index=0, delta=text)
            yield event("response.output_text.done", item_id=item["id"], output_index=index, content_index=0, text=text)
        yield event("response.output_item.done", output_index=index, item=item)
    yield event("response.completed", response=response)


def chat_request(body: dict) -> dict:
    """The chat completions body of a Responses request (the gateway keeps only the params it passes on)."""
    chat_body = {**body, "messages": to_chat_messages(body), "tools": to_chat_tools(body.get("tools"))}
    if body.get("max_output_tokens"):
        chat_body["max_tokens"] = body["max_output_tokens"]
    effort = (body.get("reasoning") or {}).get("effort")
    if effort and effort != "none":
        chat_body["reasoning_effort"] = effort
    return chat_body


async def handle_responses(gateway, route, role: str, body: dict):
    if body.get("previous_response_id"):
        raise InvalidRequest("previous_response_id is not supported by the clawmark gateway: send the full input")
    chat_body = chat_request(body)
    kwargs = gateway.call_kwargs(route, role, chat_body)
    slot = route.replays.claim(role, kwargs)  # a rerun judging stage: answers its failed run paid for
    answer = slot.answer if slot is not None else None
    if answer is not None:
        route.ledger.append(replay.replayed_record(route.attempt_id, role, kwargs["model"], False))
    else:
        answer = (await client.acomplete(**kwargs)).response
        route.replays.keep(slot, answer)
    response = to_response(answer, kwargs["model"])
    if body.get("stream"):
        return StreamingResponse(stream_events(response), media_type="text/event-stream")
    return JSONResponse(response)
