"""The sweep lease: a second live run is refused; a dead holder on this host or a stale one is
taken over; release removes only our own lease."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from clawmark.results import ResultStore
from clawmark.results.lease import LeaseHeld, SweepLease


@pytest.fixture
def store(tmp_path):
    return ResultStore(tmp_path / "results")


def test_second_live_run_is_refused_and_release_frees_it(store):
    with SweepLease(store, "s1"):
        with pytest.raises(LeaseHeld, match="sweep s1 is being run by pid"):
            SweepLease(store, "s1").acquire()
        with SweepLease(store, "other"):  # other sweeps are not affected
            pass
    with SweepLease(store, "s1") as again:
        assert again.holder()["token"] == again.token
    assert SweepLease(store, "s1").holder() is None


def test_a_killed_holder_on_this_host_is_taken_over_at_once(store):
    # a process that wrote a lease and died (SIGKILL leaves the file behind)
    code = ("import sys; from clawmark.results import ResultStore; from clawmark.results.lease import SweepLease;"
            f"SweepLease(ResultStore({str(store.root)!r}), 's2', heartbeat_s=3600).acquire()")
    subprocess.run([sys.executable, "-c", code], check=True)
    lease = SweepLease(store, "s2")
    assert lease.holder() is not None
    with lease:
        assert lease.holder()["token"] == lease.token


def test_a_stale_lease_from_another_host_is_taken_over_only_after_its_ttl(store):
    path = SweepLease(store, "s3").path
    fresh = {"token": "x", "host": "elsewhere", "pid": 1, "started": time.time(), "heartbeat": time.time()}
    store.publish(path, json.dumps(fresh).encode())
    with pytest.raises(LeaseHeld, match="elsewhere"):
        SweepLease(store, "s3").acquire()
    store.publish(path, json.dumps({**fresh, "heartbeat": time.time() - 600}).encode())
    with SweepLease(store, "s3", ttl_s=120) as lease:
        assert lease.holder()["host"] != "elsewhere"


def test_heartbeat_refreshes_the_lease(store):
    with SweepLease(store, "s4", heartbeat_s=0.05) as lease:
        first = lease.holder()["heartbeat"]
        deadline = time.monotonic() + 30
        while lease.holder()["heartbeat"] == first and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lease.holder()["heartbeat"] > first


def test_a_resume_under_another_protocol_says_what_differs(store):
    from clawmark.results.errors import ConfigMismatch

    store.pin_config("p1", {"attempt": {"budgets": {"seconds": 3600, "steps": 50}}, "protocol_version": "1"})
    with pytest.raises(ConfigMismatch, match=r"attempt\.budgets\.seconds: 3600 → 60.*--fork"):
        store.pin_config("p1", {"attempt": {"budgets": {"seconds": 60, "steps": 50}}, "protocol_version": "1"})
