"""A fake provider (the double of the outside world): answers a scripted list of HTTP statuses,
then OpenAI chat completions with fixed usage; counts the requests it got."""

from __future__ import annotations

import json

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from clawmark.gateway.serving import BackgroundServer


class FakeUpstream:
    def __init__(self, failures: list[tuple[int, dict]] | None = None, usage: dict | None = None,
                 stream_usage: bool = True):
        self.failures = list(failures or [])
        self.stream_usage = stream_usage
        self.usage = usage or {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100,
                               "prompt_tokens_details": {"cached_tokens": 600}}
        self.requests: list[dict] = []
        self.server = BackgroundServer(self._app())

    def _app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat(request: Request):
            self.requests.append(await request.json())
            if self.failures:
                status, headers = self.failures.pop(0)
                return JSONResponse({"error": {"message": f"fake {status}", "type": "fake"}}, status, headers=headers)
            body = self.requests[-1]
            if body.get("stream"):
                return StreamingResponse(self._sse(body), media_type="text/event-stream")
            message = {"role": "assistant", "content": "hello from upstream"}
            return {"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": self.usage}

        return app

    def _sse(self, body: dict):
        base = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "fake"}
        yield "data: " + json.dumps(base | {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "hello"}}]}) + "\n\n"
        yield "data: " + json.dumps(base | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}) + "\n\n"
        if self.stream_usage and (body.get("stream_options") or {}).get("include_usage"):
            yield "data: " + json.dumps(base | {"choices": [], "usage": self.usage}) + "\n\n"
        yield "data: [DONE]\n\n"

    def __enter__(self) -> "FakeUpstream":
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}/v1"
