"""Direct path to OpenAI-compatible upstreams (the scripted backend, or `openai/<m>` with an
explicit api_base such as a vLLM server): the request is forwarded as-is over a pooled aiohttp
session. litellm would translate nothing there, yet costs ~15-40 ms per call on this machine
(its per-call cost calculator and SDK layers), far above the gateway's 5 ms overhead budget.
Every other provider goes through litellm. Set CLAWMARK_GATEWAY_PASSTHROUGH=0 to force litellm."""

from __future__ import annotations

import asyncio
import json
import os
import weakref
from dataclasses import dataclass
from typing import Any, AsyncIterator

import aiohttp

from clawmark.gateway import wire_json
from clawmark.gateway.cassettes import is_scripted
from clawmark.gateway.errors import (
    AuthError, ContextWindowExceeded, InvalidRequest, ModelError, RateLimited, UpstreamUnavailable,
)
from clawmark.gateway.scripted import scripted_base_url
from clawmark.settings import settings

# OpenAI chat-completion body fields forwarded upstream (also what a claw may set).
OPENAI_BODY_PARAMS = frozenset({
    "temperature", "top_p", "max_tokens", "max_completion_tokens", "stop", "tool_choice", "response_format",
    "seed", "parallel_tool_calls", "presence_penalty", "frequency_penalty", "logit_bias", "user",
    "reasoning_effort",
})


@dataclass(frozen=True)
class DirectTarget:
    url: str  # .../chat/completions
    model: str  # the name the upstream knows
    api_key: str | None


def direct_target(model: str, params: dict[str, Any]) -> DirectTarget | None:
    if not settings().gateway_passthrough:
        return None
    if is_scripted(model):
        return DirectTarget(scripted_base_url() + "/chat/completions", model.split("/", 1)[1], None)
    if model.startswith("openai/") and params.get("api_base"):
        # The key comes from the gateway's environment, as litellm reads it: never from a cell's config.
        return DirectTarget(params["api_base"].rstrip("/") + "/chat/completions", model.split("/", 1)[1],
                            params.get("api_key") or os.environ.get("OPENAI_API_KEY"))
    return None


_sessions: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aiohttp.ClientSession]" = weakref.WeakKeyDictionary()
_CONNECTION_ERRORS = (aiohttp.ClientError, asyncio.TimeoutError)
MAX_SSE_LINE_BYTES = 16 * 2**20  # one chunk may hold a whole tool call (a file's content)


def _session() -> aiohttp.ClientSession:
    """One pooled session per event loop (aiohttp: C-accelerated HTTP parsing, ~2x less CPU than httpx)."""
    loop = asyncio.get_running_loop()
    session = _sessions.get(loop)
    if session is None or session.closed:
        session = _sessions[loop] = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=256, keepalive_timeout=30),
            read_bufsize=2**20)
    return session


async def close_session() -> None:
    """Close this event loop's pooled session (the gateway's shutdown hook)."""
    session = _sessions.pop(asyncio.get_running_loop(), None)
    if session is not None:
        await session.close()


def _send(target: DirectTarget, body: dict, timeout_s: float):
    headers = {"content-type": "application/json"}
    if target.api_key:
        headers["authorization"] = f"Bearer {target.api_key}"
    timeout = aiohttp.ClientTimeout(total=timeout_s, connect=min(timeout_s, 30.0))
    return _session().post(target.url, data=wire_json.dumps({**body, "model": target.model}), headers=headers,
                           timeout=timeout)


async def post(target: DirectTarget, body: dict, timeout_s: float) -> dict:
    try:
        async with _send(target, body, timeout_s) as response:
            content = await response.read()
    except _CONNECTION_ERRORS as exc:
        raise UpstreamUnavailable(f"{type(exc).__name__}: {exc} ({target.url})") from exc
    if response.status != 200:
        raise http_error(response.status, response.headers, content)
    return wire_json.loads(content)


async def post_stream(target: DirectTarget, body: dict, timeout_s: float) -> AsyncIterator[list[dict]]:
    """Yields batches of the upstream's chunks: all those already received, so the gateway
    relays them in one write (socket sends are what a hop costs). Typed errors; HTTP errors
    surface before the first batch."""
    try:
        async with _send(target, body, timeout_s) as response:
            if response.status != 200:
                raise http_error(response.status, response.headers, await response.read())
            buffer = b""
            async for data in response.content.iter_any():  # read to the end: the connection is reused
                *lines, buffer = (buffer + data).split(b"\n")
                if len(buffer) > MAX_SSE_LINE_BYTES:
                    raise UpstreamUnavailable(f"upstream sent an SSE line over {MAX_SSE_LINE_BYTES} bytes")
                if batch := _parse_sse(lines):
                    yield batch
    except _CONNECTION_ERRORS as exc:
        raise UpstreamUnavailable(f"{type(exc).__name__}: {exc} ({target.url})") from exc


class SSEBatch(list):
    """Chunks parsed from upstream SSE lines, with each one's JSON as received (`payloads`): the
    gateway relays those bytes rather than encode every chunk again (a tenth of its CPU per call)."""

    __slots__ = ("payloads",)

    def __init__(self) -> None:
        super().__init__()
        self.payloads: list[bytes] = []


def _parse_sse(lines: list[bytes]) -> SSEBatch:
    batch = SSEBatch()
    for line in lines:
        data = line[5:].strip() if line.startswith(b"data:") else b""
        if not data or data == b"[DONE]":
            continue
        chunk = wire_json.loads(data)
        if "error" in chunk:
            raise UpstreamUnavailable(f"upstream error mid-stream: {chunk['error']}")
        batch.append(chunk)
        batch.payloads.append(data)
    return batch


def http_error(status: int, headers, content: bytes) -> ModelError:
    try:
        error = json.loads(content).get("error") or {}
    except (ValueError, AttributeError):
        error = {}
    message = (error.get("message") if isinstance(error, dict) else str(error)) or content[:300].decode(errors="replace")
    text = f"upstream HTTP {status}: {message}"
    if status == 429:
        return RateLimited(text, status_code=status, retry_after_s=_seconds(headers.get("retry-after")))
    if status in (401, 403):
        return AuthError(text, status_code=status)
    if status >= 500 or status in (408, 409):
        return UpstreamUnavailable(text, status_code=status)
    code = error.get("code") if isinstance(error, dict) else None
    if code == "context_length_exceeded" or "context length" in message.lower():
        return ContextWindowExceeded(text, status_code=status)
    return InvalidRequest(text, status_code=status)


def _seconds(value: str | None) -> float | None:
    try:
        return max(float(value), 0.0) if value is not None else None
    except ValueError:
        return None
