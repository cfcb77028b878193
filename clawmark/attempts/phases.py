"""Wall time per phase of an attempt (NaN for phases that never ran)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from clawmark.results import PhaseTimes


class PhaseClock:
    def __init__(self) -> None:
        self.start = time.monotonic()
        self.seconds: dict[str, float] = {}

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        began = time.monotonic()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.monotonic() - began

    def times(self) -> PhaseTimes:
        return PhaseTimes(**self.seconds, total=time.monotonic() - self.start)
