"""The model gateway a sweep (or a single `clawmark run`) shares across its attempts."""

from __future__ import annotations

import os
from contextlib import contextmanager
from collections.abc import Iterator
from pathlib import Path

from clawmark.gateway.client import ClientConfig
from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.runtime.network import gateway_network
from clawmark.settings import settings

# Per-call limits of the sweep's gateway, from the environment (unset: ClientConfig's defaults).
_CLIENT_ENV = {"timeout_s": "CLAWMARK_GATEWAY_TIMEOUT_S", "max_retries": "CLAWMARK_GATEWAY_MAX_RETRIES",
               "backoff_base_s": "CLAWMARK_GATEWAY_BACKOFF_BASE_S", "backoff_max_s": "CLAWMARK_GATEWAY_BACKOFF_MAX_S"}


def client_config() -> ClientConfig:
    """Timeout, retries and backoff of each model call: a provider that hangs or refuses for
    longer than the defaults allow (300 s, 4 retries) is tuned here without editing a sweep."""
    return ClientConfig.model_validate({field: os.environ[var] for field, var in _CLIENT_ENV.items() if var in os.environ})


@contextmanager
def sweep_gateway(ledger_dir: Path | None = None) -> Iterator[GatewayServer]:
    """A gateway reachable from the host and from containers on the internal network only.

    It listens on the configured host (loopback by default: our own roles, host-side claws) and on
    the internal network's gateway address (claws in containers), never on every interface, so
    nothing else on the machine's networks can reach it and spend the operator's keys. Attempts
    must be registered (`allow_unregistered=False`), so a claw cannot pick a model or escape its
    budget, and every call needs the token of its attempt's role (the claw holds the executor's
    only: clawmark/attempts/gateway_link.py).
    """
    conf = settings()
    _, network_ip = gateway_network()
    config = GatewayConfig(host=conf.gateway_host, also_hosts=[network_ip], port=conf.gateway_port,
                           ledger_dir=ledger_dir or conf.home / "ledgers", client=client_config())
    with GatewayServer(config) as gateway:
        yield gateway
