"""A cell's slots on a real Prefect server (flows/slot_lease.py): held while the block runs and
given back after it, a second holder waits for the first, a missing limit is a clear error, and
the 503 a SQLite server answers when its write loses a race is asked again at once instead of
after Prefect's 2 s backoff, when the slots are taken and when they are given back."""

from __future__ import annotations

import threading
import time
from time import sleep as time_sleep
import uuid

import pytest
from prefect.client.orchestration import SyncPrefectClient, get_client

from flows.slot_lease import SlotsMissing, held_slots


def _limit(client, slots: int = 1) -> str:
    name = f"test-slot-{uuid.uuid4().hex[:8]}"
    client.upsert_global_concurrency_limit_by_name(name, slots)
    return name


def _active(name: str) -> int:
    with get_client(sync_client=True) as client:
        return client.read_global_concurrency_limit_by_name(name).active_slots


def test_a_slot_is_held_for_the_block_and_a_second_holder_waits(prefect_harness):
    with get_client(sync_client=True) as client:
        engine, model = _limit(client), _limit(client)
    order: list[str] = []
    first_in = threading.Event()

    def first() -> None:
        with held_slots([engine, model], 60):
            first_in.set()
            order.append(f"first holds {_active(engine)}")
            time.sleep(1.5)
            order.append("first leaves")

    def second() -> None:
        first_in.wait(30)
        with held_slots([engine, model], 60):
            order.append("second holds")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    [t.start() for t in threads]
    [t.join(120) for t in threads]
    assert order == ["first holds 1", "first leaves", "second holds"]
    assert (_active(engine), _active(model)) == (0, 0)


def test_a_missing_limit_is_named(prefect_harness):
    with get_client(sync_client=True) as client:
        present = _limit(client)
    with pytest.raises(SlotsMissing, match="never-made"):
        with held_slots([present, "never-made"], 60):
            pass


@pytest.mark.parametrize("busy_path", ["increment-with-lease", "decrement-with-lease"])  # taking, giving back
def test_a_busy_server_is_asked_again_at_once(prefect_harness, monkeypatch, busy_path):
    """The server's 503 (a lost SQLite write race) answered twice, then the real answer."""
    with get_client(sync_client=True) as client:
        name = _limit(client)
    real_request, refused = SyncPrefectClient.request, []

    def busy_twice(self, method, path, *args, **kwargs):
        if path.endswith(busy_path) and len(refused) < 2:
            import httpx
            from prefect.exceptions import PrefectHTTPStatusError

            request = httpx.Request(method, f"http://prefect{path}")
            response = httpx.Response(503, request=request, json={"exception_message": "Service Unavailable"})
            refused.append(path)
            raise PrefectHTTPStatusError.from_httpx_error(
                httpx.HTTPStatusError("503", request=request, response=response))
        return real_request(self, method, path, *args, **kwargs)

    from flows import slot_lease

    waits: list[float] = []
    monkeypatch.setattr(SyncPrefectClient, "request", busy_twice)
    monkeypatch.setattr(slot_lease, "sleep", lambda s: waits.append(s) or time_sleep(s))
    with held_slots([name], 60):
        held = _active(name)
    assert len(refused) == 2 and held == 1 and _active(name) == 0
    # our own short waits, one per refusal (Prefect's client would have waited 2 s, then 4)
    assert len(waits) == 2 and all(slot_lease.BUSY_RETRY_S[0] <= w <= slot_lease.BUSY_RETRY_S[1] for w in waits)
