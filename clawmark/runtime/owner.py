"""Who owns a container: labels that let the janitor tell leaked sandboxes from live ones, and
the sweep, cell and attempt a container belongs to.

The attempt scope is a context variable set where a cell opens (`open_scope`); every container
the sandbox creates in that context carries it (`container_labels`). Worker threads of Prefect
copy the submitter's context; a helper thread started by hand must run in a copy too
(`contextvars.copy_context().run`), or its containers lose the sweep and cell labels.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from pathlib import Path

BOOT_ID_FILE = Path("/proc/sys/kernel/random/boot_id")
SWEEP_LABEL, CELL_LABEL, ATTEMPT_LABEL = "clawmark.sweep", "clawmark.cell", "clawmark.attempt"
_SCOPE: ContextVar[dict[str, str]] = ContextVar("clawmark_attempt_scope", default={})


def open_scope(sweep_id: str, cell_key: str, attempt_id: str) -> Token:
    """Label every container created from here on in this context with the attempt's sweep,
    cell and attempt (until `close_scope(token)` or the context ends)."""
    return _SCOPE.set({SWEEP_LABEL: sweep_id, CELL_LABEL: cell_key, ATTEMPT_LABEL: attempt_id})


def close_scope(token: Token) -> None:
    _SCOPE.reset(token)


@contextmanager
def attempt_scope(sweep_id: str, cell_key: str, attempt_id: str) -> Iterator[None]:
    token = open_scope(sweep_id, cell_key, attempt_id)
    try:
        yield
    finally:
        close_scope(token)


def scope_labels() -> dict[str, str]:
    return dict(_SCOPE.get())


def container_labels(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Every label a new container gets: the attempt scope, the caller's, and the owner's."""
    return {**scope_labels(), **(extra or {}), **owner_labels()}


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
