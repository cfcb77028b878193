"""Holding a sweep's slots (flows/limits.py) for one cell: Prefect's own `concurrency` context
manager, but with the acquisition's retries in our hands.

On a SQLite server (the temporary server of a default `clawmark sweep`) the acquisition's write
transaction loses most races with the server's own task-run recorder, and the server answers
503; Prefect's client then waits 2 s before it asks again. Every cell paid ~1.9 s for it
(bench/sweep.py: a nop cell 2.4 s against a 0.17 s sandbox floor). Here a 503 is asked again
after tens of milliseconds; a 423 (every slot held) waits as long as the server's Retry-After
says, as Prefect does; the release likewise, on the same client. The lease is renewed by Prefect's own
helper."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from time import sleep
from uuid import UUID

from prefect.client.orchestration import SyncPrefectClient, get_client
from prefect.concurrency._leases import maintain_concurrency_lease
from prefect.exceptions import PrefectHTTPStatusError
from prefect.settings import PREFECT_CLIENT_MAX_RETRIES, temporary_settings

BUSY_RETRY_S = (0.02, 0.1)  # a 503 is a lost write race: asked again almost at once
BUSY_RETRIES = 200  # ~12 s of lost races in a row before the error stands


class SlotsMissing(RuntimeError):
    """A slot's concurrency limit does not exist on the server (flows/limits.ensure_limits makes them)."""


@contextmanager
def held_slots(names: list[str], lease_s: float) -> Iterator[None]:
    """One slot of each limit in `names`, held on a lease of `lease_s` seconds renewed while the
    block runs, released when it ends."""
    with get_client(sync_client=True) as client:  # one client takes the slots and gives them back
        lease_id = _acquire(client, names, lease_s)
        try:
            with maintain_concurrency_lease(lease_id, lease_s, raise_on_lease_renewal_failure=True):
                yield
        finally:
            _release(client, lease_id)


def _release(client: SyncPrefectClient, lease_id: UUID) -> None:
    """Prefect's own release helper made an async client for each call (~0.1 s of a `nop` cell's
    1.3 s); this is the same request on the client that took the slots, a lost write race asked
    again at once like the acquisition's."""
    for busy in range(BUSY_RETRIES + 1):
        try:
            with temporary_settings(updates={PREFECT_CLIENT_MAX_RETRIES: 0}):
                client.release_concurrency_slots_with_lease(lease_id)
            return
        except PrefectHTTPStatusError as exc:
            if exc.response.status_code != 503 or busy == BUSY_RETRIES:
                raise
            sleep(random.uniform(*BUSY_RETRY_S))


def _acquire(client: SyncPrefectClient, names: list[str], lease_s: float) -> UUID:
    busy = 0
    body = {"names": names, "slots": 1, "mode": "concurrency", "lease_duration": lease_s}
    with temporary_settings(updates={PREFECT_CLIENT_MAX_RETRIES: 0}):
        while True:
            try:
                answer = client.request("POST", "/v2/concurrency_limits/increment-with-lease", json=body).json()
            except PrefectHTTPStatusError as exc:
                status = exc.response.status_code
                if status == 423:
                    sleep(float(exc.response.headers.get("Retry-After", 1.0)))
                    continue
                if status == 503 and busy < BUSY_RETRIES:
                    busy += 1
                    sleep(random.uniform(*BUSY_RETRY_S))
                    continue
                raise
            if len(answer.get("limits") or []) < len(names):
                raise SlotsMissing(f"no concurrency limit for some of {names} on the Prefect server "
                                   f"(found {[limit['name'] for limit in answer.get('limits') or []]})")
            return UUID(answer["lease_id"])
