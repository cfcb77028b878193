"""Closing an attempt at the gateway (issue 7 part 5): running calls drain into the ledger before
`close_attempt` returns, a call that outlives the drain is cut and ledgered as abandoned (cost
unknown, NaN), and later calls are refused (410) with no upstream call and no ledger line."""

from __future__ import annotations

import math
import threading

import httpx
import pytest

from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.server import GatewayConfig, GatewayServer

SLOW = "scripted/ref-slow-clawmark-fixtures__iniparse-py-1"  # its first reply takes 20 s


@pytest.fixture
def gateway(tmp_path):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path)) as server:
        yield server


def _post(gw, attempt: str, box: dict, stream: bool = False) -> None:
    body = {"model": "x", "messages": [{"role": "user", "content": "go"}], "stream": stream}
    try:
        box["status"] = httpx.post(gw.base_url(attempt, "executor") + "/chat/completions", json=body,
                                   timeout=60).status_code
    except httpx.HTTPError as exc:
        box["error"] = exc


def _start(gw, attempt: str, stream: bool = False) -> tuple[threading.Thread, dict]:
    box: dict = {}
    thread = threading.Thread(target=_post, args=(gw, attempt, box, stream))
    thread.start()
    route = gw.routes.get(attempt)
    while route.inflight.running == 0 and thread.is_alive():
        threading.Event().wait(0.02)
    return thread, box


@pytest.mark.parametrize("stream", [False, True])
def test_a_call_outliving_the_drain_is_cut_and_ledgered(gateway, tmp_path, stream):
    gateway.register_attempt("cut1", model=SLOW, ledger_path=tmp_path / "cut1.jsonl")
    thread, box = _start(gateway, "cut1", stream)
    assert gateway.close_attempt("cut1", drain_s=0.2) == 1
    (record,) = read_ledger(tmp_path / "cut1.jsonl")  # written before close_attempt returned
    assert record.status == "abandoned" and math.isnan(record.cost_usd)
    thread.join(30)
    assert not thread.is_alive() and box.get("status") != 200


def test_a_running_call_drains_into_the_ledger_before_close_returns(gateway, tmp_path, monkeypatch):
    cassettes = tmp_path / "cassettes"
    cassettes.mkdir()
    (cassettes / "half-second.yaml").write_text("steps:\n  - content: done\n    latency_s: 0.5\n")
    monkeypatch.setenv("CLAWMARK_CASSETTES", str(cassettes))
    gateway.register_attempt("drain1", model="scripted/half-second", ledger_path=tmp_path / "drain1.jsonl")
    thread, box = _start(gateway, "drain1")
    assert gateway.close_attempt("drain1", drain_s=30) == 0
    assert [r.status for r in read_ledger(tmp_path / "drain1.jsonl")] == ["ok"]
    thread.join(30)
    assert box["status"] == 200


def test_a_closed_attempt_is_refused_without_a_ledger_line(gateway, tmp_path):
    gateway.register_attempt("done1", model="scripted/gateway-test", ledger_path=tmp_path / "done1.jsonl")
    gateway.close_attempt("done1")
    box: dict = {}
    _post(gateway, "done1", box)
    assert box["status"] == 410 and read_ledger(tmp_path / "done1.jsonl") == []
