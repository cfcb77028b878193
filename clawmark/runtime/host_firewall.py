"""Host firewall of the clawmark bridges: what a container may reach on the host itself.

A container can address the host through its bridge's gateway address (and any other host
address on the routed network). Docker filters forwarded traffic only; traffic INTO the host
goes through INPUT, where each clawmark bridge jumps to its own chain:

    ESTABLISHED,RELATED                  accept (replies to host-opened connections: noVNC, exec)
    tcp to <allowed ip>, socket match    accept only a socket bound to that address itself
    tcp                                  reject (tcp-reset)
    anything else                        reject (icmp port unreachable)

`-m socket` without `--nowildcard` ignores listeners bound to 0.0.0.0/::, so our own servers
(bound to the isolated network's host address on purpose) answer while a service listening on
all interfaces does not. Needs root and iptables with the socket match on the Docker host;
`CLAWMARK_HOST_FIREWALL=off` skips it (containers then reach every host service).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from clawmark.runtime.engine_lock import host_lock
from clawmark.settings import settings

CHAIN_PREFIX = "CLAWMARK-"
SYS_NET = Path("/sys/class/net")


class FirewallError(RuntimeError):
    """The host firewall of a clawmark bridge could not be installed."""


def enabled() -> bool:
    return settings().host_firewall


def chain_name(bridge: str) -> str:
    return f"{CHAIN_PREFIX}{bridge}"[:28]  # iptables chain names are at most 28 characters


def chain_rules(bridge: str, allowed_ip: str) -> list[list[str]]:
    chain = chain_name(bridge)
    return [
        ["-A", chain, "-m", "conntrack", "--ctstate", "RELATED,ESTABLISHED", "-j", "ACCEPT"],
        ["-A", chain, "-d", f"{allowed_ip}/32", "-p", "tcp", "-m", "socket", "-j", "ACCEPT"],
        ["-A", chain, "-p", "tcp", "-j", "REJECT", "--reject-with", "tcp-reset"],
        ["-A", chain, "-j", "REJECT", "--reject-with", "icmp-port-unreachable"],
    ]


def guard_bridge(bridge: str, allowed_ip: str) -> None:
    """Install (idempotently, across processes) the chain of `bridge` and its INPUT jump."""
    if not enabled():
        return
    chain = chain_name(bridge)
    wanted = [" ".join(rule) for rule in chain_rules(bridge, allowed_ip)]
    with host_lock("firewall"):
        if _current_rules(chain) != wanted:
            _iptables("-N", chain, ok_if="Chain already exists")
            _iptables("-F", chain)
            for rule in chain_rules(bridge, allowed_ip):
                _iptables(*rule)
        if not _has_rule("INPUT", "-i", bridge, "-j", chain):
            _iptables("-I", "INPUT", "1", "-i", bridge, "-j", chain)


def reap_stale_chains() -> list[str]:
    """Remove the chains (and INPUT jumps) of clawmark bridges that no longer exist."""
    if not enabled() or shutil.which("iptables") is None:
        return []
    try:
        return _reap_stale_chains()
    except FirewallError:  # not root: nothing of ours can be there either
        return []


def _reap_stale_chains() -> list[str]:
    removed = []
    with host_lock("firewall"):
        for line in _iptables("-S", "INPUT").splitlines():
            parts = line.split()
            if "-j" not in parts or "-i" not in parts:
                continue
            chain, bridge = parts[parts.index("-j") + 1], parts[parts.index("-i") + 1]
            if chain.startswith(CHAIN_PREFIX) and not (SYS_NET / bridge).exists():
                _iptables("-D", "INPUT", "-i", bridge, "-j", chain)
                _iptables("-F", chain)
                _iptables("-X", chain)
                removed.append(chain)
    return removed


def _current_rules(chain: str) -> list[str] | None:
    try:
        listed = _iptables("-S", chain)
    except FirewallError:
        return None
    return [line for line in listed.splitlines() if line.startswith("-A ")]


def _has_rule(chain: str, *spec: str) -> bool:
    try:
        _iptables("-C", chain, *spec)
    except FirewallError:
        return False
    return True


def _iptables(*args: str, ok_if: str | None = None) -> str:
    if shutil.which("iptables") is None:
        raise FirewallError("iptables is not installed: the clawmark bridges cannot be kept from host services "
                            "(install iptables, or set CLAWMARK_HOST_FIREWALL=off to accept the exposure)")
    proc = subprocess.run(["iptables", "-w", "30", *args], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0 and not (ok_if and ok_if in proc.stderr):
        raise FirewallError(f"iptables {' '.join(args)} failed: {proc.stderr.strip()[:300]} (the host firewall "
                            "of the clawmark bridges needs root; CLAWMARK_HOST_FIREWALL=off skips it)")
    return proc.stdout
