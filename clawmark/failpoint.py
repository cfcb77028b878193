"""Fail points: a test can SIGKILL this process at a named step no outside state marks narrowly.

`CLAWMARK_FAILPOINT=NAME[:N]` kills the process with SIGKILL (as an outage or the OOM killer
would: no clean-up, no atexit) the N-th time (default: the first) point NAME is reached.

Points:
- `row-commit`: `ResultStore.write`, after the cell's `row.json` is in its artifact folder and
  before its row file is published (the commit point): the cell looks finished on disk but is not.

Unset (production), reaching a point costs one environment lookup.
"""

from __future__ import annotations

import os
import signal
import threading
from collections import Counter

ENV = "CLAWMARK_FAILPOINT"
_hits: Counter[str] = Counter()
_lock = threading.Lock()


def reach(name: str) -> None:
    wanted = os.environ.get(ENV)
    if not wanted:
        return
    point, _, nth = wanted.partition(":")
    if point != name:
        return
    with _lock:
        _hits[name] += 1
        if _hits[name] == int(nth or 1):
            os.kill(os.getpid(), signal.SIGKILL)
