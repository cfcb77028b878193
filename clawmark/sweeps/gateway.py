"""The model gateway a sweep (or a single `clawmark run`) shares across its attempts."""

from __future__ import annotations

from contextlib import contextmanager
from collections.abc import Iterator
from pathlib import Path

from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.settings import settings


@contextmanager
def sweep_gateway(ledger_dir: Path | None = None) -> Iterator[GatewayServer]:
    """A gateway reachable from the host (127.0.0.1) and from containers on the internal network.

    It binds the configured host (all interfaces by default) because claws call it at the internal
    network's gateway address while our own roles call it on loopback; attempts must be registered
    (`allow_unregistered=False`), so a claw cannot pick a model or escape its budget.
    """
    conf = settings()
    config = GatewayConfig(host=conf.gateway_host, port=conf.gateway_port,
                           ledger_dir=ledger_dir or conf.home / "ledgers")
    with GatewayServer(config) as gateway:
        yield gateway
