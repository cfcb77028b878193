"""Who is to blame when a patch attempt fails before its patch is graded.

A failure of the infrastructure (engine, provider outage, rate limit, a leaking instance) is an
error outcome (clawmark.results.outcome.PatchOutcome) with NaN score, never an unresolved
instance; what the claw and model did (any patch, even after a step limit or a model refusal)
is graded by the tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import requests

from clawmark.errors import Infra
from clawmark.gateway.ledger import UsageRecord, read_ledger
from clawmark.results.outcome import PatchOutcome
from clawmark.results.status import ErrorKind, Status

# ModelError kinds (clawmark.gateway.errors) that end a claw turn through no fault of the claw.
INFRA_MODEL_ERRORS: dict[str, Status] = {
    "rate_limited": Status.RATE_LIMIT,
    "upstream_unavailable": Status.INFRA_ERROR,
    "auth_error": Status.INFRA_ERROR,
}


def infra_exceptions() -> tuple[type[BaseException], ...]:
    """Failures of the world under the attempt (engine, images, git steps, claw set-up, disk):
    infra rows (`clawmark.errors.Infra` marks the runtime's, the patch runner's and the claws').
    Any other exception is a bug of ours and becomes a harness_error row."""
    import docker.errors  # heavy (the SDK): loaded when an attempt first fails, not on import

    return (Infra, docker.errors.DockerException, requests.exceptions.RequestException, OSError, TimeoutError)


def model_error_status(kind: str | None) -> Status | None:
    """The error status a claw's model failure imposes, or None when the patch is still graded."""
    return INFRA_MODEL_ERRORS.get(kind or "")


def provider_failure(ledger: Path, role: str) -> UsageRecord | None:
    """The call that cut the claw off, when the last call of `role` failed through the provider
    (429, 5xx, connection, credentials). The gateway ledger is the witness, not the claw's exit
    code: claws report provider failures unevenly (exit 0 and a printed error, exit 1, a crash),
    so every claw — in a container or on the host — gets the same verdict from the same lines."""
    calls = sorted((r for r in read_ledger(ledger) if r.role == role and not r.refused), key=lambda r: r.ts)
    last = calls[-1] if calls else None
    return last if last is not None and last.status in INFRA_MODEL_ERRORS else None


def provider_outcome(ledger: Path, role: str, turns: int, claw_kind: str | None = None) -> PatchOutcome | None:
    """The infra outcome of an attempt a provider failure ended (ledger first, then the kind the
    claw itself reported), or None when the claw's work is to be graded."""
    failed = provider_failure(ledger, role)
    kind = failed.status if failed is not None else claw_kind
    status = model_error_status(kind)
    if status is None:
        return None
    detail = f"{failed.model}: {failed.error}" if failed is not None else "reported by the claw"
    return PatchOutcome(status=status, error_kind=ErrorKind.INFRA, turns=turns,
                        error_message=f"model provider {kind} ({detail})"[:1000])


def unreached_outcome(ledger: Path, role: str, turn: Any, calls_model: bool) -> PatchOutcome | None:
    """An infra outcome when a model-calling claw failed without a single call reaching the
    gateway: the gateway was unreachable from where the claw runs (network, binding, refused
    token), which the ledger cannot witness. A claw cut off by its deadline before its first
    call is still graded (slowness is the claw's)."""
    if not calls_model or turn.success or turn.timeout or any(r.role == role for r in read_ledger(ledger)):
        return None
    return PatchOutcome(status=Status.INFRA_ERROR, error_kind=ErrorKind.INFRA, turns=1,
                        error_message=f"no model call reached the gateway (claw {turn.exit_status}: "
                                      f"{turn.error or ''})"[:1000])
