"""An attempt's phase times (PhaseClock, timed by the one stopwatch): a phase run twice adds up,
unrounded; a phase never run stays NaN; total counts from the clock's start."""

from __future__ import annotations

import math

from clawmark.attempts.phases import PhaseClock


def test_phases_add_up_and_a_phase_never_run_is_nan(monkeypatch):
    ticks = iter([100.0, 101.0, 101.0004, 105.0, 107.5005, 110.0])
    monkeypatch.setattr("clawmark.stopwatch.time.monotonic", lambda: next(ticks))
    clock = PhaseClock()
    assert clock.start == 100.0
    with clock.phase("executor"):
        pass
    with clock.phase("executor"):
        pass
    times = clock.times()
    assert times.executor == (101.0004 - 101.0) + (107.5005 - 105.0)
    assert times.total == 10.0 and math.isnan(times.evaluate)
