"""The gateway's HTTP face: OpenAI-compatible endpoints under /a/<attempt_id>/<role>/v1, each
call sent through the client (priced, budgeted, ledgered) unless a rerun stage already got its
answer (then replayed: clawmark/gateway/replay.py), plus model discovery: what the presented
token's role may call, nothing without a token (only an open gateway lists its cassettes)."""

from __future__ import annotations

import time
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from clawmark.gateway import client, passthrough, replay, wire_json
from clawmark.gateway.cassettes import cassette_models, model_list
from clawmark.gateway.client import ClientConfig
from clawmark.gateway.errors import ContextWindowExceeded, InvalidRequest, ModelError
from clawmark.gateway.inflight import AttemptClosed, CallToken, InFlight
from clawmark.gateway.routes import CLAW_PARAMS, AttemptRoute, RouteTable, TokenRefused, UnknownAttempt, check_id

_HTTP_STATUS = {"rate_limited": 429, "auth_error": 401, "invalid_request": 400, "context_window_exceeded": 400,
                "budget_exceeded": 402, "upstream_unavailable": 503}


def error_response(status: int, message: str, kind: str, code: str | None = None) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "code": code}}, status_code=status)


def model_error_response(err: ModelError) -> JSONResponse:
    code = "context_length_exceeded" if isinstance(err, ContextWindowExceeded) else err.kind
    return error_response(_HTTP_STATUS.get(err.kind, 502), str(err), err.kind, code)


DONE = b"data: [DONE]\n\n"
EXECUTOR = "executor"


def offered_tools(tools: list | None, allowed: frozenset[str]) -> list:
    """The request's tools the claw's filter lets the model see (by function name), in their order."""
    return [t for t in tools or [] if isinstance(t, dict) and str((t.get("function") or {}).get("name")) in allowed]


def _sse(data: dict) -> bytes:
    return b"data: " + wire_json.dumps(data) + b"\n\n"


def _events(batch: list[dict]) -> list[bytes]:
    """Each chunk's SSE event: the upstream's own bytes when the batch kept them (passthrough)."""
    payloads = getattr(batch, "payloads", None)
    if payloads is None:
        return [_sse(chunk) for chunk in batch]
    return [b"data: " + payload + b"\n\n" for payload in payloads]


class GatewayApp:
    """Holds the route table and client limits the endpoints share."""

    def __init__(self, routes: RouteTable, client_config: ClientConfig, max_body_bytes: int):
        self.routes = routes
        self.client_config = client_config
        self.max_body_bytes = max_body_bytes

    def call_kwargs(self, route: AttemptRoute, role: str, body: dict) -> dict[str, Any]:
        model = route.model_for(role, body.get("model"))
        if not model:
            raise InvalidRequest("request names no model and the attempt has none configured")
        claw_params = {k: v for k, v in body.items() if k in CLAW_PARAMS}
        tools = body.get("tools")
        if role == EXECUTOR and route.executor_tools is not None:
            tools = offered_tools(tools, route.executor_tools)
            if not tools:  # nothing left to choose from: no tool_choice either
                tools = None
                claw_params.pop("tool_choice", None)
        return {"role": role, "attempt_id": route.attempt_id, "model": model, "messages": body.get("messages") or [],
                "tools": tools, "ledger": route.ledger, "budget": route.budget(role),
                "config": self.client_config, "recorder": route.recorder, "prices": route.prices,
                **claw_params, **route.params}

    async def chat(self, route: AttemptRoute, role: str, body: dict):
        """One call, counted in the attempt's in-flight set until its ledger line is written (for a
        stream: until the relay ends), so closing the attempt can drain it."""
        token, relayed = route.inflight.enter(), False
        try:
            kwargs, streamed = self.call_kwargs(route, role, body), bool(body.get("stream"))
            slot = route.replays.claim(role, kwargs)
            answer = slot.answer if slot is not None else None
            if answer is not None:  # a rerun stage's call, answered and paid for by an earlier run
                route.ledger.append(replay.replayed_record(route.attempt_id, role, kwargs["model"], streamed))
            if not streamed:
                if answer is None:
                    answer = (await client.acomplete(**kwargs)).response
                    route.replays.keep(slot, answer)
                return JSONResponse(answer)
            wants_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            if answer is not None:
                stream, first = replay.no_more(), replay.replay_chunks(answer)
            else:
                stream = client.astream(**kwargs)
                if slot is not None:
                    stream = replay.kept_stream(stream, lambda kept: route.replays.keep(slot, kept))
                first = await anext(stream)  # upstream errors surface here, as a proper HTTP status
            relayed = True
            relay = self._relay(first, stream, wants_usage, route.inflight, token)
            return StreamingResponse(relay, media_type="text/event-stream")
        finally:
            if not relayed:
                route.inflight.leave(token)

    async def _relay(self, first: list[dict], stream: AsyncIterator[list[dict]], wants_usage: bool,
                     inflight: InFlight, token: CallToken) -> AsyncIterator[bytes]:
        """One write per batch; [DONE] rides with the final usage chunk (socket sends dominate a hop)."""
        inflight.move(token)
        done = False
        try:
            batch = first
            while True:
                out = []
                for chunk, event in zip(batch, _events(batch)):
                    is_usage = bool(chunk.get("usage")) and not chunk.get("choices")
                    if not is_usage or wants_usage:
                        out.append(event)
                    if is_usage:
                        out.append(DONE)
                        done = True
                if out:
                    yield b"".join(out)
                batch = await anext(stream)
        except StopAsyncIteration:
            pass
        except ModelError as err:  # broken half-way: tell the claw in-band, the ledger has it already
            yield _sse({"error": {"message": str(err), "type": err.kind}})
        finally:
            await stream.aclose()  # the ledger line is written (abandoned, if cut) before we leave
            inflight.leave(token)
        if not done:
            yield DONE

    def models(self, route: AttemptRoute, role: str) -> dict:
        return _listing([route.model_for(role, None)])

    def token_models(self, request: Request) -> dict:
        """Discovery outside an attempt prefix (Hermes, a curious user): the models the presented
        token's role may call, its vision sibling's included; 401 without a token that opens a
        route. An open gateway (`gateway serve`) serves anyone anyway: it lists its cassettes."""
        presented = presented_token(request)
        opened = self.routes.holders(presented) if presented else []
        if opened:
            return _listing([route.model_for(role, None) for route, role in opened])
        if self.routes.allow_unregistered:
            return model_list(cassette_models())
        raise TokenRefused("model discovery needs a valid bearer token", 401)


def _listing(models: list[str | None]) -> dict:
    created = int(time.time())
    data = [{"id": m, "object": "model", "created": created, "owned_by": "clawmark"}
            for m in dict.fromkeys(models) if m]
    return {"object": "list", "data": data}


@asynccontextmanager
async def _lifespan(_: FastAPI) -> AsyncIterator[None]:
    yield
    await passthrough.close_session()  # pooled upstream connections die with the server's loop


TYPED_ERRORS = (UnknownAttempt, AttemptClosed, ModelError, TokenRefused)


def error_for(exc: Exception) -> JSONResponse | None:
    """The response a typed error of a request gets (None: not one of ours, a bug)."""
    if isinstance(exc, UnknownAttempt):
        return error_response(404, str(exc), "not_found")
    if isinstance(exc, AttemptClosed):
        return error_response(410, str(exc), "attempt_closed")
    if isinstance(exc, ModelError):
        return model_error_response(exc)
    if isinstance(exc, TokenRefused):
        return error_response(exc.status, str(exc), "authentication_error")
    return None


async def _typed_error(_: Request, exc: Exception) -> JSONResponse:
    response = error_for(exc)
    assert response is not None  # registered for TYPED_ERRORS only
    return response


def create_fastapi_app(gateway: GatewayApp) -> FastAPI:
    """Every endpoint but chat completions, which clawmark.gateway.fast_chat serves in front of it."""
    app = FastAPI(title="clawmark model gateway", lifespan=_lifespan)

    for kind in TYPED_ERRORS:
        app.add_exception_handler(kind, _typed_error)

    @app.post("/a/{attempt_id}/{role}/v1/responses")
    async def responses(attempt_id: str, role: str, request: Request):
        from clawmark.gateway.responses_api import handle_responses  # noqa: PLC0415 - rarely used

        route = authorized(gateway.routes, attempt_id, role, request)
        body = await json_body(request, gateway.max_body_bytes)
        if isinstance(body, JSONResponse):
            return body
        token = route.inflight.enter()
        try:
            return await handle_responses(gateway, route, role, body)
        finally:
            route.inflight.leave(token)

    @app.get("/a/{attempt_id}/{role}/v1/models")
    async def attempt_models(attempt_id: str, role: str, request: Request) -> dict:
        return gateway.models(authorized(gateway.routes, attempt_id, role, request), role)

    @app.get("/v1/models")
    @app.get("/api/v1/models")
    async def probe_models(request: Request) -> dict:
        return gateway.token_models(request)

    @app.api_route("/api/show", methods=["GET", "POST"])
    async def probe_show() -> JSONResponse:
        return error_response(404, "not an Ollama server", "not_found")

    @app.get("/healthz")
    async def healthz() -> dict:
        return {"ok": True}

    return app


def authorized(routes: RouteTable, attempt_id: str, role: str, request: Request) -> AttemptRoute:
    """The attempt's route, once the request shows the token of `role` (`Authorization: Bearer …`,
    as OpenAI clients send the API key, or `x-api-key`); refused before any upstream call (the
    ledger keeps a `refused` line when the token was another role's of this attempt)."""
    route = routes.get(attempt_id)
    route.check_token(presented_token(request), check_id(role, "role"))
    return route


def presented_token(request: Request) -> str | None:
    header = request.headers.get("authorization") or ""
    bearer = header[7:].strip() if header[:7].lower() == "bearer " else ""
    return bearer or request.headers.get("x-api-key")


async def json_body(request: Request, limit: int) -> dict | JSONResponse:
    raw = bytearray()
    async for piece in request.stream():
        raw += piece
        if len(raw) > limit:
            return error_response(413, f"request body over {limit} bytes", "invalid_request_error")
    try:
        body = wire_json.loads(raw)
    except ValueError as exc:
        return error_response(400, f"request body is not JSON ({exc})", "invalid_request_error")
    if not isinstance(body, dict):
        return error_response(400, "request body must be a JSON object", "invalid_request_error")
    return body
