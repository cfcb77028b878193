"""Holding a sweep's slots (flows/limits.py) for one cell: Prefect's own `concurrency` context
manager, but with the acquisition's retries in our hands.

On a SQLite server (the temporary server of a default `clawmark sweep`) the acquisition's write
transaction loses most races with the server's own task-run recorder, and the server answers
503; Prefect's client then waits 2 s before it asks again, and does so even when told to make no
retry (`_post`). Every cell paid ~1.9 s for it (bench/sweep.py: a nop cell 2.4 s against a 0.17 s
sandbox floor), later about one cell in ten. Here the slots are taken and given back on one client
past Prefect's retrying send: a 503 is asked again after tens of milliseconds, and a 423 (every slot
held) waits as long as the server's Retry-After says, as Prefect does. The lease is renewed by
Prefect's own helper.

A local sweep hands a finished cell's slots to its next cell of the same slots (`hand_over_s`):
taking and giving them back cost a `nop` cell ~0.2 s of its ~1 s on the temporary server. A lease
no cell takes within the window goes back to the server, and so does every parked lease before
this process waits for slots of other names, at the sweep's end (`release_parked`) and at exit:
no more slots are held than cells run, only for a moment longer."""

from __future__ import annotations

import atexit
import logging
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from time import sleep
from uuid import UUID

import httpx
from prefect.client.base import PrefectResponse
from prefect.client.orchestration import SyncPrefectClient, get_client
from prefect.concurrency._leases import maintain_concurrency_lease
from prefect.exceptions import PrefectHTTPStatusError

BUSY_RETRY_S = (0.02, 0.1)  # a 503 is a lost write race: asked again almost at once
BUSY_RETRIES = 200  # ~12 s of lost races in a row before the error stands
DROPPED_RETRIES = 3  # a connection closed under a request: asked again on a new one
HANDOVER_S = 2.0  # how long a local sweep's finished cell keeps its slots for the next one

log = logging.getLogger(__name__)


class SlotsMissing(RuntimeError):
    """A slot's concurrency limit does not exist on the server (flows/limits.ensure_limits makes them)."""


@contextmanager
def held_slots(names: list[str], lease_s: float, hand_over_s: float = 0.0) -> Iterator[None]:
    """One slot of each limit in `names`, held on a lease of `lease_s` seconds renewed while the
    block runs; when it ends, released, or kept `hand_over_s` seconds for the next block of the
    same names in this process (not after an error)."""
    key = tuple(sorted(names))
    with get_client(sync_client=True) as client:  # one client takes the slots and gives them back
        lease_id = _parked.take(key)
        if lease_id is None:
            _parked.release_all(client)  # this process's idle slots never make it wait for others
            lease_id = _acquire(client, names, lease_s)
        kept = False
        try:
            with maintain_concurrency_lease(lease_id, lease_s, raise_on_lease_renewal_failure=True):
                yield
            if hand_over_s > 0:
                _parked.park(key, lease_id, hand_over_s)
                kept = True
        finally:
            if not kept:
                _release(client, lease_id)


class _ParkedLeases:
    """Leases between two cells of this process, each released by a timer unless taken first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._leases: dict[UUID, tuple[tuple[str, ...], threading.Timer]] = {}

    def park(self, key: tuple[str, ...], lease_id: UUID, hand_over_s: float) -> None:
        timer = threading.Timer(hand_over_s, self._expire, (lease_id,))
        timer.daemon = True
        with self._lock:
            self._leases[lease_id] = (key, timer)
        timer.start()

    def take(self, key: tuple[str, ...]) -> UUID | None:
        with self._lock:
            lease_id = next((lease for lease, (held, _) in self._leases.items() if held == key), None)
            if lease_id is not None:
                self._leases.pop(lease_id)[1].cancel()
            return lease_id

    def release_all(self, client: SyncPrefectClient | None = None) -> None:
        with self._lock:
            leases, self._leases = list(self._leases), {}
        for lease_id in leases:
            self._release_one(lease_id, client)

    def _expire(self, lease_id: UUID) -> None:
        with self._lock:
            if self._leases.pop(lease_id, None) is None:  # taken or released meanwhile
                return
        self._release_one(lease_id, None)

    @staticmethod
    def _release_one(lease_id: UUID, client: SyncPrefectClient | None) -> None:
        try:
            if client is not None:
                _release(client, lease_id)
                return
            with get_client(sync_client=True) as own:
                _release(own, lease_id)
        except Exception as exc:  # noqa: BLE001 - the server takes the slots back when the lease lapses
            log.warning("slots of lease %s not given back (%r): the server frees them when the lease lapses", lease_id, exc)


_parked = _ParkedLeases()
atexit.register(_parked.release_all)


def release_parked() -> None:
    """Give back every slot this process keeps for a next cell (a local sweep's end)."""
    _parked.release_all()


def _release(client: SyncPrefectClient, lease_id: UUID) -> None:
    """On the client that took the slots (Prefect's own release helper made an async client per
    call, ~0.1 s of a `nop` cell)."""
    _post(client, "/v2/concurrency_limits/decrement-with-lease", {"lease_id": str(lease_id)})


def _acquire(client: SyncPrefectClient, names: list[str], lease_s: float) -> UUID:
    body = {"names": names, "slots": 1, "mode": "concurrency", "lease_duration": lease_s}
    while True:
        try:
            answer = _post(client, "/v2/concurrency_limits/increment-with-lease", body).json()
        except PrefectHTTPStatusError as exc:
            if exc.response.status_code == 423:  # every slot held: as long as the server says
                sleep(float(exc.response.headers.get("Retry-After", 1.0)))
                continue
            raise
        if len(answer.get("limits") or []) < len(names):
            raise SlotsMissing(f"no concurrency limit for some of {names} on the Prefect server "
                               f"(found {[limit['name'] for limit in answer.get('limits') or []]})")
        return UUID(answer["lease_id"])


def _post(client: SyncPrefectClient, path: str, body: dict) -> httpx.Response:
    """POST `body`; a 503 (a lost write race) asked again at once, up to BUSY_RETRIES times, and a
    connection the server closed under us (its keep-alive timeout ran out while a cell held the
    slots) asked again on a new one, up to DROPPED_RETRIES times.

    Sent past Prefect's retrying send: on a 503 it sleeps 2 s (with jitter) before it looks at
    its retry count, even told to make no retry, and about one `nop` cell in ten paid that
    (py-spy: 0.18 s per cell on average, asleep in `_send_with_retry`)."""
    http, busy, dropped = client._client, 0, 0  # noqa: SLF001 - its plain httpx send is the point
    while True:
        request = http.build_request("POST", path, json=body)
        if http.enable_csrf_support:
            http._add_csrf_headers(request)  # noqa: SLF001 - what Prefect's send adds before sending
        try:
            response = PrefectResponse.from_httpx_response(httpx.Client.send(http, request))
        except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError, httpx.ConnectError):
            # "Connection reset by peer" failed a cell of bench/sweep.py; Prefect's send retries these too
            if dropped >= DROPPED_RETRIES:
                raise
            dropped += 1
            sleep(random.uniform(*BUSY_RETRY_S))
            continue
        if response.status_code == 503 and busy < BUSY_RETRIES:
            busy += 1
            sleep(random.uniform(*BUSY_RETRY_S))
            continue
        response.raise_for_status()  # PrefectHTTPStatusError, as Prefect's client raises it
        return response
