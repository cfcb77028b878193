"""A fake provider (the double of the outside world): answers a scripted list of HTTP statuses,
then OpenAI chat completions with fixed usage; counts the requests it got."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from clawmark.gateway.serving import BackgroundServer


class FakeUpstream:
    def __init__(self, failures: list[tuple[int, dict]] | None = None, usage: dict | None = None):
        self.failures = list(failures or [])
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
            message = {"role": "assistant", "content": "hello from upstream"}
            return {"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": self.usage}

        return app

    def __enter__(self) -> "FakeUpstream":
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}/v1"
