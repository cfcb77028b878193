"""Watchdogs of a claw's turn, as UniClawBench's runner has them (``lib/runner/agent_monitor.py``,
read at f8dd80f): a claw silent for ``silence_s`` after its turn starts, or without progress for
``stall_s`` after it made some, is stopped instead of waiting out the turn's deadline. The same
watch is the step limit of a claw that has none of its own (OpenClaw, EDICT, GenericAgent): once
its turn has made more model calls than ``budgets.steps``, it is stopped (``step_limit``).

Progress is a model call of the attempt finishing at the gateway (its ledger grows): the one
signal every claw gives, in a container or on the host, that a claw cannot fake without spending
a call. A tool that runs longer than ``stall_s`` without a call between counts as a stall, as a
claw whose log stays quiet does upstream. A turn the watchdog ends is the claw's failure, typed
as a timeout (``exit_status`` ``watchdog_silence`` / ``watchdog_stall``), never an infra error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from clawmark.claws import ClawAdapter, ClawContext
from clawmark.gateway.ledger import read_ledger

Reason = Literal["silence", "stall", "steps"]
EXIT_STATUS = {"silence": "watchdog_silence", "stall": "watchdog_stall", "steps": "step_limit"}


def decide(now: float, started: float, last_progress: float | None, silence_s: float, stall_s: float) -> Reason | None:
    """Why the turn must end now, or None. ``last_progress`` None = no progress yet; a limit of 0
    is off."""
    if last_progress is None:
        return "silence" if silence_s > 0 and now - started >= silence_s else None
    return "stall" if stall_s > 0 and now - last_progress >= stall_s else None


class Watchdog:
    """Watches one turn: ``check()`` is called now and then while the turn runs. ``calls()`` is
    the number of model calls finished so far (it is only compared, never trusted as a clock)."""

    def __init__(self, calls: Callable[[], int], *, silence_s: float, stall_s: float, max_calls: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.calls, self.silence_s, self.stall_s, self.max_calls = calls, silence_s, stall_s, max_calls
        self.clock = clock
        self.started = clock()
        self.first = self.seen = calls()
        self.last_progress: float | None = None
        self.fired: Reason | None = None

    def check(self) -> Reason | None:
        now, seen = self.clock(), self.calls()
        if seen != self.seen:
            self.seen, self.last_progress = seen, now
        if self.fired is None and self.max_calls is not None and seen - self.first > self.max_calls:
            self.fired = "steps"
        self.fired = self.fired or decide(now, self.started, self.last_progress, self.silence_s, self.stall_s)
        return self.fired

    def message(self) -> str:
        if self.fired == "steps":
            return f"step limit: the turn made more than {self.max_calls} model calls"
        if self.fired == "silence":
            return f"watchdog: no model call finished in the first {self.silence_s:g} s of the turn"
        return f"watchdog: no model call finished for {self.stall_s:g} s"


def ledger_calls(ledger: Path, role: str) -> int:
    """Calls of ``role`` in the attempt's ledger (re-read only when the file grew)."""
    try:
        return sum(1 for record in read_ledger(ledger) if record.role == role)
    except OSError:
        return 0


class _LedgerCalls:
    def __init__(self, ledger: Path, role: str) -> None:
        self.ledger, self.role, self.size, self.count = ledger, role, -1, 0

    def __call__(self) -> int:
        try:
            size = self.ledger.stat().st_size
        except OSError:
            size = 0
        if size != self.size:
            self.size, self.count = size, ledger_calls(self.ledger, self.role)
        return self.count


def turn_watchdog(claw: ClawAdapter, ctx: ClawContext, role: str = "executor") -> Watchdog | None:
    """The watch of a claw's turn from its budgets; None for a claw that calls no model or with
    no ledger to watch."""
    budgets = ctx.budgets
    if not claw.calls_model or ctx.ledger_path is None:
        return None
    max_calls = None if claw.native_step_limit else budgets.steps
    return Watchdog(_LedgerCalls(Path(ctx.ledger_path), role), silence_s=budgets.silence_s, stall_s=budgets.stall_s,
                    max_calls=max_calls)
