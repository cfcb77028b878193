"""The model gateway a sweep (or a single `clawmark run`) shares across its attempts."""

from __future__ import annotations

from contextlib import contextmanager
from collections.abc import Iterator
from pathlib import Path

from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.settings import settings


@contextmanager
def sweep_gateway(ledger_dir: Path | None = None) -> Iterator[GatewayServer]:
    """A gateway reachable from the host and from containers on the internal network only.

    It listens on the configured host (loopback by default: our own roles, host-side claws) and on
    the internal network's gateway address (claws in containers), never on every interface, so
    nothing else on the machine's networks can reach it and spend the operator's keys. Attempts
    must be registered (`allow_unregistered=False`), so a claw cannot pick a model or escape its
    budget, and a patch attempt's calls need its bearer token.
    """
    from clawmark.runtime.network import gateway_network

    conf = settings()
    _, network_ip = gateway_network()
    config = GatewayConfig(host=conf.gateway_host, also_hosts=[network_ip], port=conf.gateway_port,
                           ledger_dir=ledger_dir or conf.home / "ledgers")
    with GatewayServer(config) as gateway:
        yield gateway
