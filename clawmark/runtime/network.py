"""The `gateway` network policy: an internal Docker network (no route out, no DNS) whose
host-side gateway address is where the model gateway listens, so claws reach it and nothing else."""

from __future__ import annotations

import os

from clawmark.runtime.engine import shared_client

GATEWAY_NETWORK = os.environ.get("CLAWMARK_GATEWAY_NETWORK", "clawmark-internal")
GATEWAY_HOSTNAME = "clawmark-gateway"


def gateway_network(client=None) -> tuple[str, str]:
    """(network name, host IP) of the internal network, created on first use.

    Bind the model gateway on the host IP; containers on the network call it there (or at
    http://clawmark-gateway, which sandboxes map to the same IP).
    """
    network = _get_or_create(client or shared_client())
    configs = network.attrs.get("IPAM", {}).get("Config") or []
    gateways = [c["Gateway"] for c in configs if c.get("Gateway") and ":" not in c["Gateway"]]
    if not gateways:
        raise RuntimeError(f"network {GATEWAY_NETWORK} has no IPv4 gateway address: {configs}")
    return network.name, gateways[0]


def _get_or_create(client):
    import docker

    found = [n for n in client.networks.list(names=[GATEWAY_NETWORK]) if n.name == GATEWAY_NETWORK]
    if found:
        return client.networks.get(found[0].id)
    try:
        return client.networks.create(GATEWAY_NETWORK, driver="bridge", internal=True,
                                      labels={"clawmark.managed": "true"}, check_duplicate=True)
    except docker.errors.APIError:
        # Another process created it between our list and create.
        found = [n for n in client.networks.list(names=[GATEWAY_NETWORK]) if n.name == GATEWAY_NETWORK]
        if not found:
            raise
        return client.networks.get(found[0].id)
