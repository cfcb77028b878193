"""The gateway's one hot endpoint as plain ASGI, in front of the FastAPI app.

POST /a/<attempt_id>/<role>/v1/chat/completions is every claw call. Under FastAPI it went through
routing, four middlewares, dependency resolution and StreamingResponse's task group (a disconnect
listener beside the body) on every call: a third of the gateway's CPU per proxied call on the
1-stream bench. Here the same steps run without them: the same token check (`authorized`), body
limit, `GatewayApp.chat`, the same error bodies (`error_for`). Every other request goes on to
the FastAPI app unchanged.

A streamed reply is relayed batch by batch; a client that hung up is noticed between batches
(uvicorn drops writes after a disconnect), and the relay is closed then, so the call is ledgered
as abandoned as before. Closing the attempt cancels this task (InFlight), as it cancelled the
response's.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Callable

from fastapi import Request
from fastapi.responses import StreamingResponse

from clawmark.gateway.app import DONE, GatewayApp, authorized, create_fastapi_app, error_for, json_body

CHAT_PATH = re.compile(r"/a/([^/]+)/([^/]+)/v1/chat/completions")
Scope = dict[str, Any]


class FastChat:
    def __init__(self, gateway: GatewayApp, app: Callable):
        self.gateway, self.app = gateway, app

    async def __call__(self, scope: Scope, receive: Callable, send: Callable) -> None:
        match = CHAT_PATH.fullmatch(scope["path"]) if scope["type"] == "http" and scope["method"] == "POST" else None
        if match is None:
            await self.app(scope, receive, send)
            return
        try:
            response = await self._chat(match[1], match[2], Request(scope, receive))
        except Exception as exc:  # noqa: BLE001 - the app's typed errors get their bodies, the rest re-raises
            response = error_for(exc)
            if response is None:
                raise
        if isinstance(response, StreamingResponse):
            await _relay(response, receive, send)
        else:
            await response(scope, receive, send)

    async def _chat(self, attempt_id: str, role: str, request: Request):
        route = authorized(self.gateway.routes, attempt_id, role, request)  # before the body is even read
        body = await json_body(request, self.gateway.max_body_bytes)
        if not isinstance(body, dict):  # the body's own error response
            return body
        return await self.gateway.chat(route, role, body)


async def _relay(response: StreamingResponse, receive: Callable, send: Callable) -> None:
    """The reply ends with the write that carries [DONE] (the ledger line was written before it);
    the rest of the upstream's stream is still read, unsent, so its connection is reused. A
    watcher for a hang-up starts only when more is to come after a write."""
    body = response.body_iterator
    hung_up: asyncio.Future | None = None
    ended = False
    try:
        await send({"type": "http.response.start", "status": response.status_code, "headers": response.raw_headers})
        async for chunk in body:
            if ended:
                continue
            if hung_up is not None and hung_up.done():
                break
            ended = chunk.endswith(DONE)
            await send({"type": "http.response.body", "body": chunk, "more_body": not ended})
            if hung_up is None and not ended:
                hung_up = asyncio.ensure_future(_disconnect(receive))
        if not ended:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    finally:
        if hung_up is not None:
            hung_up.cancel()
        await body.aclose()  # type: ignore[attr-defined] - our relay is an async generator


async def _disconnect(receive: Callable) -> None:
    """Returns once the client has gone (the request body was read before the reply began)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def create_gateway_app(gateway: GatewayApp) -> FastChat:
    """The gateway's whole ASGI app: chat completions here, everything else in FastAPI."""
    return FastChat(gateway, create_fastapi_app(gateway))
