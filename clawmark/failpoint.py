"""Fail points: a test can SIGKILL this process at a named step no outside state marks narrowly.

`CLAWMARK_FAILPOINT=NAME[:N]` kills the process with SIGKILL (as an outage or the OOM killer
would: no clean-up, no atexit) the N-th time (default: the first) point NAME is reached.
`CLAWMARK_FAILPOINT=NAME[:N]:raise` raises `FailpointHit` there instead: an I/O error (EIO), a
failure of the world under the attempt that its stage runner retries.

Points:
- `row-commit`: `ResultStore.write`, after the cell's `row.json` is in its artifact folder and
  before its row file is published (the commit point): the cell looks finished on disk but is not.
- `supervisor-judged`: `clawmark.judge.supervisor.judge_turn`, after the supervisor answered and
  before its judgement is returned (and written): the supervise stage fails with its call paid.
- `simulator-answered`: `clawmark.judge.simulator.simulate`, after the user simulator answered:
  the follow-up stage fails with its call paid.
- `setup-capture-committed`: `clawmark.taskenv.setup_cache`, after a set-up capture is committed
  under its partial tag and before it is published under its key.

Unset (production), reaching a point costs one environment lookup.
"""

from __future__ import annotations

import errno
import os
import signal
import threading
from collections import Counter

from clawmark.settings import settings

ENV = "CLAWMARK_FAILPOINT"
_hits: Counter[str] = Counter()
_lock = threading.Lock()


class FailpointHit(OSError):
    """A `:raise` fail point was reached."""


def reach(name: str) -> None:
    wanted = settings().failpoint
    if not wanted:
        return
    point, *rest = wanted.split(":")
    if point != name:
        return
    raises = bool(rest) and rest[-1] == "raise"
    nth = int(rest[0]) if rest and rest[0] != "raise" else 1
    with _lock:
        _hits[name] += 1
        hit = _hits[name] == nth
    if hit and raises:
        raise FailpointHit(errno.EIO, f"fail point {name} reached ({ENV}={wanted})")
    if hit:
        os.kill(os.getpid(), signal.SIGKILL)
