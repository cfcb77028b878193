"""One coordinator per sweep at a time: a lease file beside the sweep's pinned config.

Two runs of one sweep at once would clear each other's in-progress artifact folders and run
cells twice. The coordinator (the process that plans the sweep and clears partial folders)
holds `<root>/sweeps/<sweep_id>/lease.json` and refreshes it every `heartbeat_s`; another run
is refused while the lease is fresh. A lease whose holder is gone is taken over at once when the
holder ran on this host (its pid is dead: a SIGKILLed sweep resumes immediately), else once its
heartbeat is older than `ttl_s`. Workers that only run cells never take the sweep's lease; a
cell run on a pool takes its cell's lease (`cell_lease`), so a resubmitted cell never runs beside
a live earlier run of itself and the coordinator can tell a run whose worker died.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from typing import TYPE_CHECKING

import pyarrow.fs as pafs

from clawmark.results.layout import check_name

if TYPE_CHECKING:
    from clawmark.results.store import ResultStore


class LeaseHeld(RuntimeError):
    """Another live run holds the sweep's lease."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_live(lease: dict, ttl_s: float) -> bool:
    """A lease's holder may still be working: its pid lives (same host) and it beat within `ttl_s`."""
    if lease.get("host") == socket.gethostname() and not _alive(int(lease.get("pid", 0))):
        return False
    return time.time() - float(lease.get("heartbeat", 0)) < ttl_s


def read_note(store: ResultStore, path: str) -> dict | None:
    """A small JSON file a live process keeps in the store (a lease, a count); None when it is
    absent, torn or unreadable: a reader then goes without it."""
    if store.fs.get_file_info(path).type != pafs.FileType.File:
        return None
    try:
        with store.fs.open_input_stream(path) as stream:
            note = json.loads(stream.read().decode("utf-8"))
    except (OSError, ValueError):
        return None
    return note if isinstance(note, dict) else None


def cell_lease_dir(store: ResultStore, sweep_id: str) -> str:
    return f"{store.root}/sweeps/{check_name('sweep_id', sweep_id)}/running"


def cell_lease(store: ResultStore, sweep_id: str, cell_key: str, *, ttl_s: float = 60.0,
               heartbeat_s: float = 10.0, note: dict | None = None) -> SweepLease:
    """The lease one run of a cell holds while it runs (`sweeps/<id>/running/<cell>.json`)."""
    path = f"{cell_lease_dir(store, sweep_id)}/{check_name('cell_key', cell_key)}.json"
    return SweepLease(store, sweep_id, ttl_s=ttl_s, heartbeat_s=heartbeat_s, path=path, note=note)


class SweepLease:
    def __init__(self, store: ResultStore, sweep_id: str, *, ttl_s: float = 120.0, heartbeat_s: float = 20.0,
                 path: str | None = None, note: dict | None = None):
        self.note = dict(note or {})  # what else the holder wants readers to know (its flow run)
        self.store, self.sweep_id = store, check_name("sweep_id", sweep_id)
        self.ttl_s, self.heartbeat_s = ttl_s, heartbeat_s
        self.path = path or f"{store.root}/sweeps/{sweep_id}/lease.json"
        self.token = uuid.uuid4().hex
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    def holder(self) -> dict | None:
        return read_note(self.store, self.path)  # a torn or unreadable lease protects nothing

    def _is_live(self, lease: dict) -> bool:
        return lease.get("token") != self.token and is_live(lease, self.ttl_s)

    def _write(self, started: float) -> None:
        lease = {**self.note, "token": self.token, "host": socket.gethostname(), "pid": os.getpid(),
                 "started": started, "heartbeat": time.time()}
        self.store.publish(self.path, json.dumps(lease).encode("utf-8"))

    def acquire(self) -> SweepLease:
        held = self.holder()
        if held is not None and self._is_live(held):
            since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(float(held.get("started", 0))))
            raise LeaseHeld(f"sweep {self.sweep_id} is being run by pid {held.get('pid')} on {held.get('host')} "
                            f"since {since} (lease {self.path}); wait for it, or stop it first")
        started = time.time()
        self._write(started)
        self._beat = threading.Thread(target=self._heartbeat, args=(started,), name="sweep-lease", daemon=True)
        self._beat.start()
        return self

    def _heartbeat(self, started: float) -> None:
        while not self._stop.wait(self.heartbeat_s):
            self._write(started)

    def release(self) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(timeout=5)
        held = self.holder()
        if held is not None and held.get("token") == self.token:
            self.store.fs.delete_file(self.path)

    def __enter__(self) -> SweepLease:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
