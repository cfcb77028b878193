"""The turn's watch (clawmark/attempts/watchdog.py): silence after start, stall after progress,
and the host-side step limit of a claw without its own, on a fake clock; then the step limit
for real through run_with_deadline, a turn writing real ledger lines, stopped and typed."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from clawmark.attempts.session import run_with_deadline
from clawmark.attempts.watchdog import Watchdog, decide, turn_watchdog
from clawmark.claws import Budgets, ClawContext, TurnResult, get_claw
from clawmark.gateway.ledger import Ledger, UsageRecord


@pytest.mark.parametrize(("now", "last", "expected"), [
    (179.0, None, None), (180.0, None, "silence"),  # nothing at all for silence_s after the start
    (699.9, 100.0, None), (700.0, 100.0, "stall"),  # progress at 100 s, then nothing for stall_s
    (10_000.0, 9_500.0, None)])
def test_decide(now, last, expected):
    assert decide(now, 0.0, last, silence_s=180.0, stall_s=600.0) == expected


def test_a_limit_of_zero_is_off():
    assert decide(10_000.0, 0.0, None, silence_s=0.0, stall_s=600.0) is None
    assert decide(10_000.0, 0.0, 1.0, silence_s=180.0, stall_s=0.0) is None


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_each_call_restarts_the_stall_clock_and_the_step_limit_counts_this_turn_only():
    clock, calls = FakeClock(), [7]  # seven calls of earlier turns are already in the ledger
    watch = Watchdog(lambda: calls[0], silence_s=5, stall_s=10, max_calls=3, clock=clock)
    for t, n in [(4.0, 8), (13.0, 9), (22.0, 10)]:  # a call every 9 s: never silent, never stalled
        clock.now, calls[0] = t, n
        assert watch.check() is None
    clock.now, calls[0] = 23.0, 11  # the fourth call of this turn: one over the limit
    assert watch.check() == "steps" and "more than 3 model calls" in watch.message()
    stalled = Watchdog(lambda: 1, silence_s=5, stall_s=10, clock=clock)
    clock.now += 4.9
    assert stalled.check() is None
    clock.now += 0.1
    assert stalled.check() == "silence" and "first 5 s" in stalled.message()


def _ctx(tmp_path: Path, **budgets) -> ClawContext:
    return ClawContext(attempt_id="wd", gateway_url="http://x", model="scripted/x", host_dir=tmp_path,
                       ledger_path=tmp_path / "ledger.jsonl", budgets=Budgets(**budgets))


def test_which_claws_the_host_step_limit_watches(tmp_path):
    ctx = _ctx(tmp_path, steps=12)
    assert turn_watchdog(get_claw("openclaw"), ctx).max_calls == 12  # no cap of its own
    assert turn_watchdog(get_claw("genericagent"), ctx).max_calls == 12
    assert turn_watchdog(get_claw("nanobot"), ctx).max_calls is None  # maxToolIterations = steps
    assert turn_watchdog(get_claw("nop"), ctx) is None  # calls no model


def test_a_turn_past_its_step_limit_is_stopped_and_typed(tmp_path):
    """A host-side loop that keeps calling (a double of a claw; the ledger is the real one) is
    stopped once it made more calls than `steps`, and the turn says step_limit."""
    ctx, stopped = _ctx(tmp_path, steps=3), threading.Event()
    ledger = Ledger(ctx.ledger_path)

    def runaway() -> TurnResult:
        while not stopped.wait(0.05):
            ledger.append(UsageRecord(attempt_id="wd", role="executor", model="scripted/x"))
        return TurnResult(success=True)

    result = run_with_deadline(runaway, 120.0, stop=stopped.set, watchdog=turn_watchdog(get_claw("openclaw"), ctx))
    assert (result.success, result.timeout, result.finish_reason, result.exit_status) == (
        False, False, "limit", "step_limit")
    assert "more than 3 model calls" in result.error


def test_the_default_watchdogs_outlast_one_gateway_call():
    """Progress is a call finishing at the gateway: a live call may run up to the per-request
    timeout, so a limit below it would take a slow model for a silent claw."""
    from clawmark.claws import Budgets
    from clawmark.gateway.client import ClientConfig

    budgets, call_timeout = Budgets(), ClientConfig().timeout_s
    assert budgets.silence_s > call_timeout and budgets.stall_s > call_timeout
