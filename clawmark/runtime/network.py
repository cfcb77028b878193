"""Where sandboxes are networked, and what they reach.

Two shared Docker bridges, created on first use, both with inter-container traffic off
(`enable_icc=false`): a container never reaches another container on its bridge (another
attempt's or its own attempt's), and Docker already isolates bridges from each other.

- `clawmark-isolated` (internal: no route out, no DNS): the `gateway` sandbox network, task
  policies `none` and `registries-only`. Its host-side gateway address is where the model
  gateway, the registry proxy and the web proxy listen.
- `clawmark-open` (routed out, Docker's DNS): task policy `full`, sandbox network `bridge`
  (SWE evaluation's `default`).

On the host, each bridge's traffic into the host goes through its own firewall chain
(`clawmark.runtime.host_firewall`): only connections to a socket bound to the isolated network's
host address itself are let in, so a host service listening on all interfaces (a Prefect API,
a database) is refused, and so is everything else addressed to the host (pings included).
"""

from __future__ import annotations

import re
import threading

from clawmark.runtime import host_firewall
from clawmark.runtime.engine import shared_client
from clawmark.runtime.engine_lock import engine_lock
from clawmark.runtime.errors import RuntimeFailure
from clawmark.settings import settings

GATEWAY_NETWORK = settings().gateway_network
OPEN_NETWORK = settings().open_network
GATEWAY_HOSTNAME = "clawmark-gateway"
NO_ICC = {"com.docker.network.bridge.enable_icc": "false"}

class DuplicateNetworks(RuntimeFailure):
    """More than one network of a clawmark name, and clawmark may not choose which to remove."""


_guarded: set[str] = set()  # network ids whose host firewall this process has checked
_lock = threading.Lock()


def gateway_network(client=None) -> tuple[str, str]:
    """(network name, host IP) of the internal network, created and guarded on first use.

    Bind the model gateway on the host IP; containers on the network call it there (or at
    http://clawmark-gateway, which sandboxes map to the same IP).
    """
    client = client or shared_client()
    network = _get_or_create(client, GATEWAY_NETWORK, internal=True)
    host_ip = _host_ip(network)
    _guard(network, host_ip)
    return network.name, host_ip


def open_network(client=None) -> tuple[str, str]:
    """(network name, its own host IP) of the routed network; its containers reach the
    gateway at gateway_network()'s host IP, as the isolated ones do."""
    client = client or shared_client()
    _, gateway_ip = gateway_network(client)
    network = _get_or_create(client, OPEN_NETWORK, internal=False)
    _guard(network, gateway_ip)
    return network.name, _host_ip(network)


def network_for(kind: str, client=None) -> tuple[str, str]:
    """(network name, gateway host IP) of a sandbox network kind: "gateway" or "bridge"."""
    gateway_name, gateway_ip = gateway_network(client)
    if kind == "gateway":
        return gateway_name, gateway_ip
    return open_network(client)[0], gateway_ip


def _guard(network, allowed_ip: str) -> None:
    with _lock:
        if network.id in _guarded:
            return
        host_firewall.guard_bridge(bridge_name(network), allowed_ip)
        _guarded.add(network.id)


def bridge_name(network) -> str:
    """The host interface of a bridge network (Docker names it br-<id12> unless told otherwise)."""
    options = network.attrs.get("Options") or {}
    return options.get("com.docker.network.bridge.name") or f"br-{network.id[:12]}"


def _host_ip(network) -> str:
    configs = network.attrs.get("IPAM", {}).get("Config") or []
    gateways = [c["Gateway"] for c in configs if c.get("Gateway") and ":" not in c["Gateway"]]
    if not gateways:
        raise RuntimeError(f"network {network.name} has no IPv4 gateway address: {configs}")
    return gateways[0]


def _get_or_create(client, name: str, internal: bool):
    """The one network `name`: created under the engine's host lock (Docker lets two callers
    each create one), duplicates made anyway (an older clawmark, another host) reconciled."""
    copies = network_copies(client, name)
    if len(copies) == 1:  # the common case: no lock, no engine-wide wait
        return checked(copies[0])
    with engine_lock(f"network-{name}", client):
        if not network_copies(client, name):
            client.networks.create(name, driver="bridge", internal=internal, options=NO_ICC,
                                   labels={"clawmark.managed": "true"}, check_duplicate=True)
        return checked(_reconciled(client, name))


def network_copies(client, name: str) -> list:
    """Every network named exactly `name` (Docker's filter matches substrings), inspected
    (Created, Containers), oldest first; ties broken by id so every caller sees one order."""
    import docker  # heavy (Docker SDK): loaded on first engine use

    copies = []
    for listed in client.networks.list(names=[name]):
        if listed.name != name:
            continue
        try:
            copies.append(client.networks.get(listed.id))
        except docker.errors.NotFound:  # removed between the listing and the inspect
            continue
    return sorted(copies, key=lambda n: (created_at(n.attrs.get("Created", "")), n.id))


def created_at(stamp: str) -> tuple[str, int]:
    """(seconds part, nanoseconds) of Docker's RFC 3339 time: its fraction has no trailing zeros,
    so the strings alone do not sort."""
    found = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?", stamp)
    if not found:
        return stamp, 0
    return found[1], int((found[2] or "").ljust(9, "0")[:9])


def _reconciled(client, name: str):
    """Keep one network `name`: the one containers use, else the oldest; remove the unused rest.

    Two or more in use cannot be settled without stopping someone's containers: refuse, naming them."""
    import docker  # heavy (Docker SDK): loaded on first engine use

    copies = network_copies(client, name)
    if not copies:
        raise DuplicateNetworks(f"network {name} vanished while it was being created; run again")
    keep = keeper(name, copies)
    for extra in (n for n in copies if n.id != keep.id):
        try:
            extra.remove()
        except docker.errors.NotFound:
            pass
        except docker.errors.APIError as exc:  # a container attached meanwhile
            raise DuplicateNetworks(f"network {name} exists twice ({keep.id[:12]} kept, {extra.id[:12]} could not "
                                    f"be removed: {exc.explanation or exc}); stop its containers, then "
                                    f"`docker network rm {extra.id[:12]}`") from exc
    return keep


def keeper(name: str, copies: list):
    """Of the networks named `name` (oldest first), the one to keep: the one containers use, else
    the oldest. Raises DuplicateNetworks when containers use more than one."""
    in_use = [n for n in copies if n.attrs.get("Containers")]
    if len(in_use) > 1:
        ids = ", ".join(n.id[:12] for n in in_use)
        raise DuplicateNetworks(
            f"{len(copies)} networks are named {name} on this engine and {len(in_use)} of them have containers "
            f"({ids}); clawmark cannot tell which to keep. Stop the containers on all but one, then remove "
            f"the others: " + "; ".join(f"`docker network rm {n.id[:12]}`" for n in in_use[1:]))
    return in_use[0] if in_use else copies[0]


def checked(network):
    """A network made before inter-container traffic was switched off must not be reused."""
    options = network.attrs.get("Options") or {}
    if options.get("com.docker.network.bridge.enable_icc") != "false":
        raise RuntimeError(f"network {network.name} lets its containers reach each other (enable_icc is not false); "
                           f"remove it (`docker network rm {network.name}`) once no container uses it")
    return network
