"""Which shared slots a cell occupies while it runs: one Docker slot of its engine and one model
slot of its provider. Orchestration turns these names into concurrency limits; here they are
only names, so a 429 storm on one provider holds that provider's cells and no others."""

from __future__ import annotations

import os
import re

from clawmark.gateway.cassettes import is_scripted
from clawmark.settings import settings

_UNSAFE = re.compile(r"[^a-z0-9-]+")


def _slug(text: str) -> str:
    return _UNSAFE.sub("-", text.lower()).strip("-")[:60] or "default"


def engine_slot(docker_host: str | None = None) -> str:
    """`clawmark-docker-<engine>`: the local socket, or the remote DOCKER_HOST a worker drives."""
    host = docker_host if docker_host is not None else os.environ.get("DOCKER_HOST", "")
    return f"clawmark-docker-{_slug(host) if host and not host.startswith('unix://') else 'local'}"


def provider_of(model: str) -> str:
    """`scripted`, or the litellm provider prefix (`anthropic/claude-…` → `anthropic`)."""
    if is_scripted(model):
        return "scripted"
    return model.split("/", 1)[0] if "/" in model else "openai"


def model_slot(model: str) -> str:
    return f"clawmark-model-{_slug(provider_of(model))}"


def slots_of(model: str, docker_host: str | None = None) -> list[str]:
    return [engine_slot(docker_host), model_slot(model)]


def slot_lease_s() -> float:
    """How long a held slot outlives a holder that stopped renewing it (a SIGKILLed sweep or
    worker): the Prefect server takes the slot back this long after the last renewal, so a
    resumed sweep is not left waiting on slots of the dead run (CLAWMARK_SLOT_LEASE_S, default
    60, also the least a Prefect server accepts; Prefect's own default of 300 s held every
    resume up for five minutes)."""
    return max(60.0, settings().slot_lease_s)
