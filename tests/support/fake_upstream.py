"""A fake OpenAI-compatible provider on loopback (the double of the outside world): it refuses
with 429 + Retry-After for its first `refuse` requests, or never answers (`hang`), and records
when each request arrived, so a test can check the gateway's backoff from the provider's side."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web

REPLY = "I looked at the code and have no diff to offer."
USAGE = {"prompt_tokens": 1000, "completion_tokens": 20, "total_tokens": 1020}


@dataclass
class FakeUpstream:
    refuse: int = 0  # the first `refuse` requests get 429
    refuse_while: Callable[[], bool] | None = None  # or: 429 as long as this says so
    retry_after_s: float = 1.0
    hang: bool = False  # accept the request, never answer
    drip_s: float = 0.0  # a streamed reply: one word every drip_s seconds
    arrivals: list[float] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    peers: list[tuple] = field(default_factory=list)  # each request's client address: a reused connection repeats one
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.arrivals.append(time.time())
        self.peers.append(request.transport.get_extra_info("peername") if request.transport else None)
        if self.hang:
            self.statuses.append(0)
            while self.hang:  # answers nothing until the test turns hanging off (or stops the server)
                await asyncio.sleep(0.1)
            return web.Response(status=503)
        if len(self.arrivals) <= self.refuse or (self.refuse_while is not None and self.refuse_while()):
            self.statuses.append(429)
            return web.json_response({"error": {"message": "slow down", "type": "rate_limit_error"}}, status=429,
                                     headers={"Retry-After": f"{self.retry_after_s:g}"})
        self.statuses.append(200)
        if body.get("stream") and self.drip_s:
            return await self._drip(request, body)
        message = {"role": "assistant", "content": REPLY}
        return web.json_response({"id": "fake-1", "object": "chat.completion", "created": int(time.time()),
                                  "model": body.get("model", "fake"), "usage": USAGE,
                                  "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})

    async def _drip(self, request: web.Request, body: dict) -> web.StreamResponse:
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await response.prepare(request)
        base = {"id": "fake-1", "object": "chat.completion.chunk", "model": body.get("model", "fake")}
        for word in REPLY.split():
            chunk = {**base, "choices": [{"index": 0, "delta": {"content": word + " "}, "finish_reason": None}]}
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
            await asyncio.sleep(self.drip_s)
        await response.write(f"data: {json.dumps({**base, 'choices': [], 'usage': USAGE})}\n\ndata: [DONE]\n\n".encode())
        return response

    def refused(self) -> int:
        return self.statuses.count(429)


class UpstreamThread:
    """Runs a FakeUpstream's aiohttp app in a daemon thread with its own event loop."""

    def __init__(self, upstream: FakeUpstream):
        self.upstream = upstream
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._runner: web.AppRunner | None = None

    def __enter__(self) -> FakeUpstream:
        threading.Thread(target=self._serve, daemon=True, name="fake-upstream").start()
        if not self._ready.wait(30):
            raise RuntimeError("fake upstream did not start")
        return self.upstream

    def __exit__(self, *exc: object) -> None:
        self.upstream.hang = False
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self.upstream.chat)
        self._runner = web.AppRunner(app, shutdown_timeout=1)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.upstream.port = site._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
