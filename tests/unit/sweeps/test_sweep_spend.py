"""A sweep's spend against its cost cap: the coordinator's meter counts from the rows and publishes
its count; a pool cell run reads that count while the coordinator lives, else the rows."""

from __future__ import annotations

import json
import os
import socket
import subprocess

import pytest

from clawmark.results import ResultStore
from clawmark.results.lease import SweepLease
from clawmark.sweeps import plan_sweep
from clawmark.sweeps.spend import SpendMeter, spend_path, spent_usd
from tests.unit.sweeps.test_sweeps_plan import _commit, _spec

CAPPED = {"max_cost_usd": 1.0}


def _rows_unread(monkeypatch, store: ResultStore) -> None:
    monkeypatch.setattr(store, "read", lambda *a, **k: pytest.fail("the meter read every row"))


def test_spent_counts_every_committed_cost(tmp_path):
    store = ResultStore(tmp_path)
    spec = _spec()
    cells = [c for c in plan_sweep(spec, store).cells if c.claw == "oracle"]
    _commit(store, spec, cells[0], "resolved", cost=0.25)
    _commit(store, spec, cells[1], "infra_error", cost=0.5)
    assert spent_usd(store, "s1") == pytest.approx(0.75)
    assert spent_usd(store, "other") == 0.0


def test_spend_meter_starts_from_committed_rows_and_ignores_unpriced(tmp_path):
    store = ResultStore(tmp_path)
    spec = _spec(**CAPPED)
    _commit(store, spec, plan_sweep(spec, store).cells[0], "resolved", cost=0.6)
    meter = SpendMeter.for_sweep(spec, store)
    assert meter.spent_usd == pytest.approx(0.6) and not meter.exhausted
    meter.add(float("nan"))
    meter.add(None)
    assert not meter.exhausted
    meter.add(0.4)
    assert meter.exhausted
    assert not SpendMeter(cap_usd=None, spent_usd=1e9).exhausted


def test_an_uncapped_sweeps_meters_read_and_write_nothing(tmp_path, monkeypatch):
    store = ResultStore(tmp_path)
    spec = _spec()
    _commit(store, spec, plan_sweep(spec, store).cells[0], "resolved", cost=0.6)
    _rows_unread(monkeypatch, store)
    for meter in (SpendMeter.for_sweep(spec, store), SpendMeter.for_cell(spec, store)):
        meter.add(0.5)
        assert meter.cap_usd is None and not meter.exhausted
    assert not (tmp_path / "sweeps" / "s1" / "spend.json").exists()


def test_a_cell_run_reads_the_live_coordinators_count_not_the_rows(tmp_path, monkeypatch):
    store = ResultStore(tmp_path)
    spec = _spec(**CAPPED)
    cells = plan_sweep(spec, store).cells
    _commit(store, spec, cells[0], "resolved", cost=0.3)
    with SweepLease(store, spec.sweep_id):
        coordinator = SpendMeter.for_sweep(spec, store)
        _commit(store, spec, cells[1], "resolved", cost=0.5)
        coordinator.add(0.5)  # the coordinator saw the commit
        with monkeypatch.context() as patched:
            _rows_unread(patched, store)
            cell = SpendMeter.for_cell(spec, store)
        assert cell.spent_usd == pytest.approx(0.8) and not cell.exhausted
        coordinator.add(0.25)
        with monkeypatch.context() as patched:
            _rows_unread(patched, store)
            assert SpendMeter.for_cell(spec, store).exhausted
    # the coordinator is gone (lease released): the rows decide, its last count is not trusted
    _commit(store, spec, cells[2], "resolved", cost=0.1)
    assert SpendMeter.for_cell(spec, store).spent_usd == pytest.approx(0.9)


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_a_count_not_the_live_holders_own_or_unreadable_is_not_trusted(tmp_path):
    store = ResultStore(tmp_path)
    spec = _spec(**CAPPED)
    _commit(store, spec, plan_sweep(spec, store).cells[0], "resolved", cost=0.4)
    count = spend_path(store, spec.sweep_id)
    here = {"host": socket.gethostname(), "pid": os.getpid()}
    with SweepLease(store, spec.sweep_id):
        store.publish(count, json.dumps({"spent_usd": 0.0, "host": "elsewhere", "pid": os.getpid()}).encode())
        assert SpendMeter.for_cell(spec, store).spent_usd == pytest.approx(0.4)  # another holder's count
        store.publish(count, b'{"spent_usd": 0.0, "ho')  # torn
        assert SpendMeter.for_cell(spec, store).spent_usd == pytest.approx(0.4)
        store.publish(count, json.dumps({"spent_usd": 0.0, **here}).encode())
        assert SpendMeter.for_cell(spec, store).spent_usd == 0.0  # the live holder's own count
    # a lease left by a coordinator whose pid died on this host: not live, the rows decide
    lease = {"token": "t", "host": socket.gethostname(), "pid": _dead_pid(), "started": 0, "heartbeat": 9e12}
    store.publish(f"{store.root}/sweeps/{spec.sweep_id}/lease.json", json.dumps(lease).encode())
    store.publish(count, json.dumps({"spent_usd": 0.0, "host": lease["host"], "pid": lease["pid"]}).encode())
    assert SpendMeter.for_cell(spec, store).spent_usd == pytest.approx(0.4)
