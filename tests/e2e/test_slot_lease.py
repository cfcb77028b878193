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
from prefect.client.orchestration import get_client

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
    """The server's 503 (a lost SQLite write race) answered twice on the wire, then the real
    answer: asked again after our own short waits, never after the 2 s Prefect's client sleeps on
    a 503 (it does even when told to make no retry)."""
    import httpx
    from prefect.client.base import PrefectHttpxSyncClient

    from flows import slot_lease

    with get_client(sync_client=True) as client:
        name = _limit(client)
    real_send, refused, waits, retried_by_prefect = httpx.Client.send, [], [], []
    real_retrying = PrefectHttpxSyncClient._send_with_retry

    def busy_twice(self, request, *args, **kwargs):
        if request.url.path.endswith(busy_path) and len(refused) < 2:
            refused.append(request.url.path)
            return httpx.Response(503, request=request, json={"exception_message": "Service Unavailable"})
        return real_send(self, request, *args, **kwargs)

    monkeypatch.setattr(httpx.Client, "send", busy_twice)
    monkeypatch.setattr(PrefectHttpxSyncClient, "_send_with_retry", lambda self, request, **kwargs: (
        retried_by_prefect.append(request.url.path), real_retrying(self, request=request, **kwargs))[1])
    monkeypatch.setattr(slot_lease, "sleep", lambda s: waits.append(s) or time_sleep(s))
    with held_slots([name], 60):
        held = _active(name)
    assert len(refused) == 2 and held == 1 and _active(name) == 0
    # neither request went through Prefect's retrying send, which sleeps 2 s on a 503
    assert not [path for path in retried_by_prefect if path.endswith("with-lease")]
    # our own short waits, one per refusal (Prefect's client would have waited 2 s, then 4)
    assert len(waits) == 2 and all(slot_lease.BUSY_RETRY_S[0] <= w <= slot_lease.BUSY_RETRY_S[1] for w in waits)


def _counting(monkeypatch) -> dict[str, int]:
    from flows import slot_lease

    calls = {"acquire": 0, "release": 0}
    for name, real in (("acquire", slot_lease._acquire), ("release", slot_lease._release)):
        def counted(*args, _name=name, _real=real, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)
        monkeypatch.setattr(slot_lease, f"_{name}", counted)
    return calls


def test_a_finished_blocks_slots_go_to_the_next_block_of_the_same_slots(prefect_harness, monkeypatch):
    """Kept for the window, taken by the next block with no request to the server, given back by
    the timer when no block comes; a block that failed gives its slots back at once."""
    with get_client(sync_client=True) as client:
        engine, model = _limit(client), _limit(client)
    calls = _counting(monkeypatch)
    with held_slots([engine, model], 60, hand_over_s=30):
        pass
    parked = (_active(engine), _active(model))
    with held_slots([model, engine], 60, hand_over_s=0.5):  # the same slots, in another order
        inside = _active(engine)
    deadline = time.monotonic() + 30
    while _active(engine) and time.monotonic() < deadline:
        time.sleep(0.2)
    after_timer = (_active(engine), _active(model), dict(calls))
    with pytest.raises(RuntimeError):
        with held_slots([engine, model], 60, hand_over_s=30):
            raise RuntimeError("the cell broke")
    assert parked == (1, 1) and inside == 1
    assert after_timer == (0, 0, {"acquire": 1, "release": 1})
    assert (_active(engine), _active(model)) == (0, 0) and calls == {"acquire": 2, "release": 2}


def test_kept_slots_never_make_this_process_wait_for_other_slots(prefect_harness, monkeypatch):
    """A block of other slots gives the kept ones back before it asks for its own (its engine slot
    is the kept one's, and the limit has one): it gets them at once; `release_parked` ends the rest."""
    from flows.slot_lease import release_parked

    with get_client(sync_client=True) as client:
        engine, model_a, model_b = _limit(client), _limit(client), _limit(client)
    calls = _counting(monkeypatch)
    with held_slots([engine, model_a], 60, hand_over_s=60):
        pass
    started = time.monotonic()
    with held_slots([engine, model_b], 60, hand_over_s=60):
        waited, held = time.monotonic() - started, (_active(engine), _active(model_a), _active(model_b))
    kept = (_active(engine), _active(model_b))
    release_parked()
    assert held == (1, 0, 1) and waited < 5  # a 423 would have waited the server's Retry-After
    assert kept == (1, 1) and (_active(engine), _active(model_b)) == (0, 0)
    assert calls == {"acquire": 2, "release": 2}


@pytest.mark.parametrize("dropped_path", ["increment-with-lease", "decrement-with-lease"])
def test_a_connection_closed_under_a_request_is_asked_again(prefect_harness, monkeypatch, dropped_path):
    """The server's keep-alive timeout can close the connection a cell's client held idle while
    the cell ran: the request fails with a reset, and is sent again instead of failing the cell."""
    import httpx

    with get_client(sync_client=True) as client:
        name = _limit(client)
    real_send, dropped = httpx.Client.send, []

    def reset_once(self, request, *args, **kwargs):
        if request.url.path.endswith(dropped_path) and not dropped:
            dropped.append(request.url.path)
            raise httpx.ReadError("[Errno 104] Connection reset by peer", request=request)
        return real_send(self, request, *args, **kwargs)

    monkeypatch.setattr(httpx.Client, "send", reset_once)
    with held_slots([name], 60):
        held = _active(name)
    assert len(dropped) == 1 and held == 1 and _active(name) == 0
