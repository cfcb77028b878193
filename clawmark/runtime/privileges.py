"""What a sandbox may do beyond its limits: capability profiles, no-new-privileges, and the one
mount never allowed (the Docker engine's socket: whoever holds it owns the host).

`least` (every sandbox but SWE-bench evaluation): all capabilities dropped, then only what
root needs to set the container up and run services: change owners and modes of files it does
not own (CHOWN, DAC_OVERRIDE, FOWNER, FSETID), switch to an unprivileged user (SETUID, SETGID:
apt's _apt sandbox, runuser) and kill the executor's processes at a deadline (KILL). No NET_RAW
(no raw sockets, no ping, no ARP/DNS spoofing on the bridge), no MKNOD, SYS_CHROOT, AUDIT_WRITE,
SETFCAP, SETPCAP, NET_BIND_SERVICE. `no-new-privileges` stops setuid binaries (sudo, su) from
raising anyone's privileges. The executor runs as an unprivileged user where the task allows,
so it holds none of these.

`swebench-harness`: Docker's default capability set and no security options, exactly what
swebench's harness gives its evaluation containers (some test runners need it), plus the
evaluator's own additions (SYS_ADMIN).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

Privileges = Literal["least", "swebench-harness"]
LEAST_CAPS = ("CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL")
NO_NEW_PRIVILEGES = "no-new-privileges:true"
ENGINE_SOCKETS = ("/var/run/docker.sock", "/run/docker.sock")


def host_config(privileges: Privileges, cap_add: list[str]) -> dict:
    """docker SDK create() keywords of a profile plus extra capabilities."""
    if privileges == "swebench-harness":
        return {"cap_add": list(cap_add) or None, "privileged": False}
    caps = sorted({*LEAST_CAPS, *(c.upper().removeprefix("CAP_") for c in cap_add)})
    return {"cap_drop": ["ALL"], "cap_add": caps, "security_opt": [NO_NEW_PRIVILEGES], "privileged": False}


def refuse_engine_socket(volumes: dict | list) -> None:
    """Raise ValueError when a bind mount would expose the Docker engine's socket."""
    sources = volumes if isinstance(volumes, dict) else [str(v).split(":", 1)[0] for v in volumes]
    sockets = [Path(s).resolve() for s in engine_sockets()]
    for source in (str(s) for s in sources):
        if not source.startswith("/"):
            continue  # a named volume
        mounted = Path(source).resolve()
        if any(sock == mounted or sock.is_relative_to(mounted) for sock in sockets):
            raise ValueError(f"volumes: {source} would expose the Docker engine's socket to the container; "
                             "expected a mount that holds no engine socket")


def engine_sockets() -> list[str]:
    found = list(ENGINE_SOCKETS)
    host = os.environ.get("DOCKER_HOST", "")
    if host.startswith("unix://"):
        found.append(host.removeprefix("unix://"))
    return found
