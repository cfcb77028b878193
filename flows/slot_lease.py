"""Holding a sweep's slots (flows/limits.py) for one cell: Prefect's own `concurrency` context
manager, but with the acquisition's retries in our hands.

On a SQLite server (the temporary server of a default `clawmark sweep`) the acquisition's write
transaction loses most races with the server's own task-run recorder, and the server answers
503; Prefect's client then waits 2 s before it asks again, and does so even when told to make no
retry (`_post`). Every cell paid ~1.9 s for it (bench/sweep.py: a nop cell 2.4 s against a 0.17 s
sandbox floor), later about one cell in ten. Here the slots are taken and given back on one client
past Prefect's retrying send: a 503 is asked again after tens of milliseconds, and a 423 (every slot
held) waits as long as the server's Retry-After says, as Prefect does. The lease is renewed by
Prefect's own helper."""

from __future__ import annotations

import random
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
    """POST `body`; a 503 (a lost write race) asked again at once, up to BUSY_RETRIES times.

    Sent past Prefect's retrying `send`: on a 503 it sleeps 2 s (with jitter) before it looks at
    its retry count, even told to make no retry, and about one `nop` cell in ten paid that
    (py-spy: 0.18 s per cell on average, asleep in `_send_with_retry`)."""
    http, busy = client._client, 0  # noqa: SLF001 - its plain httpx send is the point
    while True:
        request = http.build_request("POST", path, json=body)
        if http.enable_csrf_support:
            http._add_csrf_headers(request)  # noqa: SLF001 - what Prefect's send adds before sending
        response = PrefectResponse.from_httpx_response(httpx.Client.send(http, request))
        if response.status_code == 503 and busy < BUSY_RETRIES:
            busy += 1
            sleep(random.uniform(*BUSY_RETRY_S))
            continue
        response.raise_for_status()  # PrefectHTTPStatusError, as Prefect's client raises it
        return response
