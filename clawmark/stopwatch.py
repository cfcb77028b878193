"""The one stopwatch: seconds since it started, and laps (each the time since the previous lap).

Monotonic, so a clock change never makes a duration negative; rounded to the millisecond, as rows
and logs keep it. Ground floor: every room times its work with it."""

from __future__ import annotations

import time


class Stopwatch:
    def __init__(self) -> None:
        self.start = self._last = time.monotonic()
        self.laps: dict[str, float] = {}

    def elapsed(self) -> float:
        return round(self.seconds(), 3)

    def seconds(self) -> float:
        """Unrounded: for durations added up or compared to a deadline, where a rounding per part would drift."""
        return time.monotonic() - self.start

    def lap(self, name: str) -> float:
        """Record under `name` the seconds since the previous lap (or the start)."""
        now = time.monotonic()
        self.laps[name], self._last = round(now - self._last, 3), now
        return self.laps[name]
