"""The scripted model: an OpenAI-compatible HTTP server answering from cassettes — the double of
a real provider, reached by litellm as `openai/<cassette>` with `api_base` pointing here."""

from __future__ import annotations

import asyncio
import json
import math
import threading
import time
import uuid
from typing import Any, Iterator

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from clawmark.gateway.cassettes import (SCRIPTED_PREFIX, CassetteError, Step, cassette_models, content_text,
                                        get_cassette, model_list, offered_tools)
from clawmark.gateway.serving import BackgroundServer
from clawmark.settings import settings

STREAM_PIECE_CHARS = 24


def _estimate_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def _usage(step: Step, messages: list[dict], tools: list | None) -> dict[str, Any]:
    spec = step.usage
    prompt_text = "".join(content_text(m.get("content")) for m in messages) + (json.dumps(tools) if tools else "")
    reply_text = (step.content or "") + "".join(t.name + t.arguments_json() for t in step.tool_calls)
    prompt = spec.prompt if spec and spec.prompt is not None else _estimate_tokens(prompt_text)
    completion = spec.completion if spec and spec.completion is not None else _estimate_tokens(reply_text)
    return {
        "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": spec.cached if spec else 0},
        "completion_tokens_details": {"reasoning_tokens": spec.reasoning if spec else 0},
    }


def _tool_calls(step: Step, index: int) -> list[dict]:
    return [{"id": call.id or f"call_{index}_{i}", "type": "function",
             "function": {"name": call.name, "arguments": call.arguments_json()}}
            for i, call in enumerate(step.tool_calls)]


def _message(step: Step, index: int) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": step.content}
    if step.tool_calls:
        message["tool_calls"] = _tool_calls(step, index)
    return message


def _finish_reason(step: Step) -> str:
    return step.finish_reason or ("tool_calls" if step.tool_calls else "stop")


def _chunks(step: Step, index: int, base: dict, usage: dict | None) -> Iterator[dict]:
    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    text = step.content or ""
    for start in range(0, len(text), STREAM_PIECE_CHARS):
        yield chunk({"content": text[start:start + STREAM_PIECE_CHARS]})
    for i, call in enumerate(_tool_calls(step, index)):
        yield chunk({"tool_calls": [{"index": i, **call}]})
    yield chunk({}, _finish_reason(step))
    if usage is not None:
        yield {**base, "choices": [], "usage": usage}


def _sse(chunks: Iterator[dict]) -> Iterator[str]:
    # One write for the whole reply: the chunks are all ready, and per-write socket costs would
    # only add noise to what the gateway bench measures.
    yield "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"


def _error(status: int, message: str, kind: str = "invalid_request_error") -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind}}, status_code=status)


def create_scripted_app() -> FastAPI:
    app = FastAPI(title="clawmark scripted model")

    @app.get("/v1/models")
    async def models() -> dict:
        return model_list([m.removeprefix(SCRIPTED_PREFIX) for m in cassette_models()])

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        body = await request.json()
        messages = body.get("messages") or []
        try:
            index, step = get_cassette(str(body.get("model", ""))).choose(messages, offered_tools(body.get("tools")))
        except CassetteError as exc:
            return _error(400, str(exc))
        if step.latency_s:
            await asyncio.sleep(step.latency_s)
        base = {"id": f"chatcmpl-{uuid.uuid4().hex[:20]}", "created": int(time.time()), "model": body.get("model")}
        usage = _usage(step, messages, body.get("tools"))
        if body.get("stream"):
            wants_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            chunks = _chunks(step, index, {**base, "object": "chat.completion.chunk"}, usage if wants_usage else None)
            return StreamingResponse(_sse(chunks), media_type="text/event-stream")
        choice = {"index": 0, "message": _message(step, index), "finish_reason": _finish_reason(step)}
        return {**base, "object": "chat.completion", "choices": [choice], "usage": usage}

    return app


_backend: BackgroundServer | None = None
_backend_lock = threading.Lock()


def scripted_base_url() -> str:
    """Base URL (…/v1) of the scripted model: `$CLAWMARK_SCRIPTED_URL`, else one server per
    process on 127.0.0.1, started on first use."""
    global _backend
    if url := settings().scripted_url:
        return url.rstrip("/")
    with _backend_lock:
        if _backend is None or not _backend.serving():
            _backend = BackgroundServer(create_scripted_app(), "127.0.0.1", 0).start()
    return f"http://127.0.0.1:{_backend.port}/v1"
