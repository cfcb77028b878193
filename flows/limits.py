"""Prefect global concurrency limits for a sweep's slots (see clawmark.sweeps.slots).

They are exact and shared by every worker that talks to the same server, unlike a per-process
pool. A limit that already exists is left as the operator set it (tune it in the UI or with
`prefect gcl update`); a missing one is created with the sweep's `max_parallel`.

Slots are held on leases. A real server takes back the slots of a holder that died once its
lease lapses (clawmark.sweeps.slots.slot_lease_s). A temporary server (no PREFECT_API_URL: the
default `clawmark sweep`) keeps its leases in its own memory, so a SIGKILLed run takes them to
the grave while the slot counts stay in the database: every later run would wait forever. A run
on a temporary server therefore starts by zeroing the counts — any slot in them belonged to a
process whose temporary server is gone (or to another live local run in the same PREFECT_HOME,
which then shares the engine one slot over its limit: better than a sweep that never resumes).
The killed run's temporary server itself outlives it too (an orphan, ~230 MB): it is stopped."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterable
from pathlib import Path

from prefect.client.orchestration import SyncPrefectClient, get_client
from prefect.client.schemas.actions import GlobalConcurrencyLimitUpdate
from prefect.client.schemas.responses import GlobalConcurrencyLimitResponse
from prefect.exceptions import ObjectNotFound
from prefect.settings import PREFECT_API_URL, PREFECT_HOME

from clawmark.sweeps.slots import engine_slot, model_slot


def ensure_limits(models: list[str], limit: int) -> list[str]:
    names = sorted({engine_slot(), *(model_slot(m) for m in models)})
    temporary = not PREFECT_API_URL.value()
    if temporary:
        stop_orphaned_servers()
    with get_client(sync_client=True) as client:
        existing = []
        for name in names:
            try:
                existing.append(client.read_global_concurrency_limit_by_name(name))
            except ObjectNotFound:
                client.upsert_global_concurrency_limit_by_name(name, limit)
        if temporary:  # any slot held was orphaned by a killed run: its temporary server took the leases
            free_held_slots(client, existing)
    return names


def free_held_slots(client: SyncPrefectClient, limits: Iterable[GlobalConcurrencyLimitResponse]) -> None:
    """Zero the active slots of each of `limits` that holds some (no holder is left to release them)."""
    for held in limits:
        if held.active_slots:
            client.update_global_concurrency_limit(held.name, GlobalConcurrencyLimitUpdate(active_slots=0))


def stop_orphaned_servers() -> list[int]:
    """SIGTERM the temporary Prefect servers of this Prefect home whose run was killed (their
    parent is gone: they were re-parented to init); their pids."""
    home, stopped = str(Path(PREFECT_HOME.value()).expanduser()), []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _orphaned_server_of(entry, home):
            try:
                os.kill(int(entry.name), signal.SIGTERM)
                stopped.append(int(entry.name))
            except ProcessLookupError:
                pass
    return stopped


def _orphaned_server_of(proc: Path, home: str) -> bool:
    try:
        ppid = (proc / "stat").read_text().rsplit(")", 1)[1].split()[1]
        cmdline = (proc / "cmdline").read_bytes()
        env = dict(line.split("=", 1) for line in (proc / "environ").read_text(errors="replace").split("\0") if "=" in line)
    except OSError:
        return False
    return (ppid == "1" and b"prefect.server.api.server:create_app" in cmdline and env.get("PREFECT__SERVER_EPHEMERAL") == "1"
            and str(Path(env.get("PREFECT_HOME", "~/.prefect")).expanduser()) == home)
