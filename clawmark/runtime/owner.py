"""Who owns a container: labels that let the janitor tell leaked sandboxes from live ones."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

BOOT_ID_FILE = Path("/proc/sys/kernel/random/boot_id")


def owner_labels(pid: int | None = None) -> dict[str, str]:
    pid = pid or os.getpid()
    return {
        "clawmark.managed": "true",
        "clawmark.created": str(int(time.time())),
        "clawmark.owner_pid": str(pid),
        "clawmark.owner_start": process_start(pid) or "",
        "clawmark.owner_host": socket.gethostname(),
        "clawmark.owner_boot": boot_id(),
    }


def owner_is_gone(labels: dict[str, str]) -> bool:
    """True only when the owner ran on this host and boot and its process no longer exists.

    The process start time guards against a recycled pid.
    """
    if labels.get("clawmark.owner_host") != socket.gethostname() or labels.get("clawmark.owner_boot") != boot_id():
        return False
    pid = labels.get("clawmark.owner_pid", "")
    if not pid.isdigit():
        return False
    started = process_start(int(pid))
    return started is None or started != labels.get("clawmark.owner_start", started)


def boot_id() -> str:
    try:
        return BOOT_ID_FILE.read_text().strip()
    except OSError:
        return ""


def process_start(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def numeric_user(user: str | None) -> tuple[int, int] | None:
    """(uid, gid) for a numeric 'uid[:gid]' user spec; None for names or no user."""
    if not user:
        return None
    uid, _, gid = user.partition(":")
    if not uid.isdigit() or (gid and not gid.isdigit()):
        return None
    return int(uid), int(gid or uid)
