"""How a clawmark model string becomes a litellm call, and how litellm's failures become our
typed errors and retry delays."""

from __future__ import annotations

import email.utils
import functools
import random
import sys
import time
from types import ModuleType
from typing import Any

from clawmark.gateway.errors import (
    AuthError, ContextWindowExceeded, InvalidRequest, ModelError, RateLimited, UpstreamUnavailable,
)
from clawmark.gateway.cassettes import SCRIPTED_PREFIX, is_scripted
from clawmark.gateway.scripted import scripted_base_url


@functools.cache
def litellm_module() -> ModuleType:
    """litellm, imported on the first call that needs it: importing it takes seconds, which every
    process paid (a pool's cell run, each CLI command) though scripted and OpenAI-compatible
    calls take the passthrough path and never reach it."""
    import litellm  # heavy: see the docstring

    litellm.suppress_debug_info = True
    return litellm


@functools.cache
def _error_map() -> list[tuple[type[Exception], type[ModelError]]]:
    litellm = litellm_module()
    return [  # most specific first: ContextWindowExceededError is a BadRequestError
        (litellm.ContextWindowExceededError, ContextWindowExceeded),
        (litellm.RateLimitError, RateLimited),
        (litellm.AuthenticationError, AuthError),
        (litellm.PermissionDeniedError, AuthError),
        (litellm.BadRequestError, InvalidRequest),
        (litellm.NotFoundError, InvalidRequest),
        (litellm.UnprocessableEntityError, InvalidRequest),
        (litellm.Timeout, UpstreamUnavailable),
        (litellm.APIConnectionError, UpstreamUnavailable),
        (litellm.InternalServerError, UpstreamUnavailable),
        (litellm.ServiceUnavailableError, UpstreamUnavailable),
        (litellm.BadGatewayError, UpstreamUnavailable),
    ]


def litellm_target(model: str) -> dict[str, Any]:
    """litellm kwargs that reach `model`; `scripted/<cassette>` goes to the scripted backend."""
    if is_scripted(model):
        name = model[len(SCRIPTED_PREFIX):]
        return {"model": f"openai/{name}", "api_base": scripted_base_url(), "api_key": "scripted"}
    return {"model": model}


def to_model_error(exc: Exception) -> ModelError:
    if isinstance(exc, ModelError):
        return exc
    status = getattr(exc, "status_code", None)
    known = _error_map() if "litellm" in sys.modules else []  # no litellm loaded: not one of its errors
    kind = next((ours for theirs, ours in known if isinstance(exc, theirs)), None)
    if kind is None:
        kind = UpstreamUnavailable if isinstance(status, int) and status >= 500 else ModelError
    return kind(f"{type(exc).__name__}: {exc}", status_code=status, retry_after_s=_retry_after(exc))


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or getattr(exc, "litellm_response_headers", None) or {}
    try:
        value = headers.get("retry-after")
    except AttributeError:
        return None
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        when = email.utils.parsedate_to_datetime(value)
        return max(when.timestamp() - time.time(), 0.0) if when else None


def backoff_delay(retry: int, retry_after_s: float | None, *, base_s: float, max_s: float) -> float:
    """Exponential backoff with equal jitter; a Retry-After from the upstream is a floor (the
    client gives up instead when it is past `max_s`, rather than retry before it)."""
    ceiling = min(max_s, base_s * 2 ** (retry - 1))
    delay = ceiling / 2 + random.uniform(0, ceiling / 2)
    return min(max(delay, retry_after_s or 0.0), max_s)
