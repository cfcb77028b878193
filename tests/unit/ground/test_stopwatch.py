"""The one stopwatch (clawmark/stopwatch.py): laps split the time in order, each since the
previous lap, and elapsed counts from the start, to the millisecond; read off a scripted clock."""

from __future__ import annotations

from clawmark.stopwatch import Stopwatch


def test_laps_split_the_elapsed_time_in_order(monkeypatch):
    ticks = iter([10.0, 10.5, 12.2504, 13.0])
    monkeypatch.setattr("clawmark.stopwatch.time.monotonic", lambda: next(ticks))
    watch = Stopwatch()
    assert watch.lap("image") == 0.5
    watch.lap("eval")
    assert watch.laps == {"image": 0.5, "eval": 1.75}
    assert watch.elapsed() == 3.0


def test_seconds_are_unrounded_for_sums_and_deadlines(monkeypatch):
    ticks = iter([10.0, 10.0004, 10.0008])
    monkeypatch.setattr("clawmark.stopwatch.time.monotonic", lambda: next(ticks))
    watch = Stopwatch()
    assert watch.seconds() == 10.0004 - 10.0
    assert watch.elapsed() == 0.001
