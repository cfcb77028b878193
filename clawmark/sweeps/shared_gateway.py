"""The model gateway a sweep (or a single `clawmark run`) shares across its attempts."""

from __future__ import annotations

from contextlib import contextmanager
from collections.abc import Iterator
from pathlib import Path

from clawmark.gateway.client import ClientConfig
from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.runtime.network import gateway_network
from clawmark.settings import settings

_CLIENT_FIELDS = ("timeout_s", "max_retries", "backoff_base_s", "backoff_max_s")  # settings().gateway_<field>


def client_config() -> ClientConfig:
    """Timeout, retries and backoff of each model call: a provider that hangs or refuses for
    longer than the defaults allow (300 s, 4 retries) is tuned here without editing a sweep."""
    conf = settings()
    given = {field: getattr(conf, f"gateway_{field}") for field in _CLIENT_FIELDS}
    return ClientConfig.model_validate({field: value for field, value in given.items() if value is not None})


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
