"""Host locks around get-or-create of state that attempts, processes and pool workers share.

Docker does not refuse a second network of one name (docker.io 20.10 with check_duplicate
neither), and parallel callers seeding one volume or building one image each see it absent
and each make it: so every get-or-create of engine state runs under `engine_lock(name)`, a
file lock keyed by the engine (`docker info`: its ID and data root), so every process on this host that talks
to one engine shares it, whatever its CLAWMARK_HOME or TMPDIR. `host_lock(name)` is the same
for state of the host itself (iptables). An in-process lock per key is taken first, so threads
of one process queue on it instead of all polling the file.

Lock files live in $CLAWMARK_LOCK_DIR, else /var/lock/clawmark (world-writable and sticky like
/tmp: a root worker and a user's CLI on one host must meet in one place), else <home>/locks.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from clawmark.runtime.engine import shared_client
from clawmark.runtime.errors import RuntimeFailure
from clawmark.settings import settings

DEFAULT_TIMEOUT_S = 600.0
SYSTEM_LOCK_DIR = Path("/var/lock/clawmark")

_engine_ids: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # client -> engine ID
_in_process: dict[str, threading.Lock] = {}
_registry_lock = threading.Lock()


class LockTimeout(RuntimeFailure):
    """Another process held a host lock longer than the caller's bound."""


def engine_id(client=None) -> str:
    """The engine's ID and data root from `docker info`, asked once per client. Docker 20.10
    derives the ID from the host's /etc/docker/key.json, so two engines of one host share it;
    no two share a data root, and one engine keeps both across restarts and socket addresses."""
    client = client or shared_client()
    found = _engine_ids.get(client)
    if found is None:
        info = client.info()
        root = hashlib.sha256(str(info.get("DockerRootDir", "")).encode()).hexdigest()[:8]
        found = f"{info.get('ID') or info.get('Name') or 'unknown-engine'}-{root}"
        _engine_ids[client] = found
    return found


@contextmanager
def engine_lock(name: str, client=None, timeout_s: float = DEFAULT_TIMEOUT_S) -> Iterator[None]:
    """Hold the lock of `name` on this client's engine (default: the process's shared client)."""
    with _held(f"engine-{_safe(engine_id(client))}-{_safe(name)}", timeout_s):
        yield


@contextmanager
def host_lock(name: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> Iterator[None]:
    """Hold the lock of `name` on this host, whatever the engine (the host firewall)."""
    with _held(f"host-{_safe(name)}", timeout_s):
        yield


def lock_dir() -> Path:
    conf = settings()
    if conf.lock_dir:
        return _made(conf.lock_dir)
    try:
        return _made(SYSTEM_LOCK_DIR, shared=True)
    except OSError:
        return _made(conf.home / "locks")


@contextmanager
def _held(key: str, timeout_s: float) -> Iterator[None]:
    with _registry_lock:
        local = _in_process.setdefault(key, threading.Lock())
    if not local.acquire(timeout=timeout_s):
        raise LockTimeout(f"waited {timeout_s:.0f} s for the lock {key} held by another thread of this process")
    try:
        path = lock_dir() / f"{key}.lock"
        file_lock = FileLock(path, timeout=timeout_s, mode=0o666, thread_local=False)
        try:
            file_lock.acquire()
        except Timeout as exc:
            raise LockTimeout(f"waited {timeout_s:.0f} s for {path}, held by another process on this host "
                              f"(`fuser {path}` names it)") from exc
        try:
            yield
        finally:
            file_lock.release()
    finally:
        local.release()


def _made(folder: Path, shared: bool = False) -> Path:
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        if shared:
            folder.chmod(0o1777)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OSError(f"{folder} is not writable")
    return folder


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:120]
