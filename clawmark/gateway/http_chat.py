"""OpenAI-compatible chat calls over HTTP to the clawmark gateway, from the host: host-side claws
(reference, bare) and the judge's roles (judge/chat.py). Lives with the gateway so the judge needs no claw.

Host-side claws use the same HTTP door as claws inside containers, so the gateway ledger sees
every call of every claw the same way. HTTP failures become the gateway's typed ModelErrors."""

from __future__ import annotations

from typing import Any

import httpx

from clawmark.gateway.errors import (
    AuthError,
    BudgetExceeded,
    ContextWindowExceeded,
    InvalidRequest,
    ModelError,
    RateLimited,
    UpstreamUnavailable,
)

_BY_KIND: dict[str, type[ModelError]] = {
    cls.kind: cls
    for cls in (AuthError, BudgetExceeded, ContextWindowExceeded, InvalidRequest, RateLimited, UpstreamUnavailable)
}


def _error_for(response: httpx.Response) -> ModelError:
    try:
        body = response.json()
    except ValueError:
        body = {}
    error = body.get("error", body) if isinstance(body, dict) else {}
    error = error if isinstance(error, dict) else {"message": str(error)}
    message = str(error.get("message") or response.text[:500])
    kind = str(error.get("type") or error.get("kind") or error.get("code") or "")
    cls = _BY_KIND.get(kind) or _class_for_status(response.status_code)
    return cls(f"gateway answered {response.status_code}: {message}", status_code=response.status_code)


def _class_for_status(status: int) -> type[ModelError]:
    if status == 429:
        return RateLimited
    if status in (401, 403):
        return AuthError
    if status == 402:
        return BudgetExceeded
    if status >= 500:
        return UpstreamUnavailable
    return InvalidRequest


def chat_completion(
    base_url: str,
    model: str,
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    timeout_s: float = 600.0,
    token: str = "",
    **params: object,
) -> dict[str, Any]:
    """POST ``{base_url}/chat/completions`` with the attempt's bearer ``token`` (``ctx.gateway_token``);
    returns the OpenAI-shaped response dict."""
    body: dict[str, Any] = {"model": model, "messages": messages, **params}
    if tools:
        body["tools"] = tools
    try:
        response = httpx.post(
            f"{base_url.rstrip('/')}/chat/completions",
            json=body,
            headers={"Authorization": f"Bearer {token or 'clawmark'}"},
            timeout=timeout_s,
        )
    except httpx.HTTPError as exc:
        raise UpstreamUnavailable(f"gateway unreachable at {base_url}: {exc}") from exc
    if response.status_code != 200:
        raise _error_for(response)
    return response.json()


def first_message(response: dict[str, Any]) -> dict[str, Any]:
    """The assistant message of choice 0, or an InvalidRequest when the reply has none."""
    choices = response.get("choices") or []
    if not choices or not isinstance(choices[0].get("message"), dict):
        raise InvalidRequest(f"reply without a message: {str(response)[:300]}")
    return choices[0]["message"]
