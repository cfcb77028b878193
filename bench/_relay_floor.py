"""The least a Python hop can cost: an ASGI app on the gateway's server stack (uvicorn, httptools,
uvloop) that forwards the body to the upstream over a pooled aiohttp session and relays the reply's
bytes as they come, with no routing, token, accounting or parsing. bench/gateway.py measures it
beside the gateway in the same run, so the gateway's overhead reads against what any Python relay
on this machine adds. Run: uvicorn --factory bench._relay_floor:create_app (CLAWMARK_FLOOR_UPSTREAM
names the upstream's chat completions URL)."""

from __future__ import annotations

import os

import aiohttp


def create_app():
    upstream = os.environ["CLAWMARK_FLOOR_UPSTREAM"]
    sessions: list[aiohttp.ClientSession] = []

    async def app(scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            for session in sessions:
                await session.close()
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["method"] == "GET":  # the readiness probe
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"{}"})
            return
        body, more = b"", True
        while more:
            message = await receive()
            body, more = body + message.get("body", b""), message.get("more_body", False)
        if not sessions:
            sessions.append(aiohttp.ClientSession())
        # the upstream knows the model by its bare name, as the gateway's passthrough sends it
        body = body.replace(b'"scripted/', b'"', 1)
        async with sessions[0].post(upstream, data=body, headers={"content-type": "application/json"}) as reply:
            await send({"type": "http.response.start", "status": reply.status,
                        "headers": [(b"content-type", reply.headers.get("content-type", "").encode())]})
            async for data in reply.content.iter_any():
                await send({"type": "http.response.body", "body": data, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app
