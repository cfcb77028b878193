"""Typed failures of a model call. `retryable` tells the client whether backing off can help."""

from __future__ import annotations

from clawmark.errors import Permanent


class ModelError(Permanent):
    """A model call failed; `kind` is the ledger status and the attempt's error kind. Permanent for
    an attempt's stage: the gateway client already backed off (`retryable`); auth and budget never heal."""

    kind = "model_error"
    retryable = False

    def __init__(self, message: str, *, status_code: int | None = None, retry_after_s: float | None = None):
        super().__init__(message)
        self.status_code = status_code
        self.retry_after_s = retry_after_s


class RateLimited(ModelError):
    """The upstream answered 429; retried with backoff, honouring Retry-After."""

    kind = "rate_limited"
    retryable = True


class UpstreamUnavailable(ModelError):
    """5xx, timeout or connection failure; retried with backoff."""

    kind = "upstream_unavailable"
    retryable = True


class AuthError(ModelError):
    """Missing or refused credentials; never retried."""

    kind = "auth_error"


class InvalidRequest(ModelError):
    """The upstream refused the request as malformed (or a cassette had no step); never retried."""

    kind = "invalid_request"


class ContextWindowExceeded(InvalidRequest):
    """The conversation no longer fits the model's context window; never retried."""

    kind = "context_window_exceeded"


class BudgetExceeded(ModelError):
    """A cost cap (attempt or sweep) is already reached; the call was refused before it was made."""

    kind = "budget_exceeded"


class CallAbandoned(ModelError):
    """The caller hung up mid-stream; only ever a ledger status (tokens were still spent)."""

    kind = "abandoned"
