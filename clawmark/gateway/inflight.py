"""Model calls of one attempt still running in the gateway's event loop.

Counted so that an attempt is closed only once its last ledger line is written: `close` refuses
new calls, waits for the running ones, and cancels those that outlive the drain (the client then
records them as abandoned). Calls enter and leave on the event loop; `close` runs in the
attempt's thread."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass

CANCEL_WAIT_S = 10.0  # how long cancelled calls get to write their ledger line


class AttemptClosed(LookupError):
    """A call for an attempt that was already closed: refused before any upstream call or ledger line."""


@dataclass(eq=False)
class CallToken:
    task: asyncio.Task | None
    loop: asyncio.AbstractEventLoop


class InFlight:
    def __init__(self, attempt_id: str):
        self.attempt_id = attempt_id
        self.closed = False
        self._calls: set[CallToken] = set()
        self._cond = threading.Condition()

    def enter(self) -> CallToken:
        token = CallToken(asyncio.current_task(), asyncio.get_running_loop())
        with self._cond:
            if self.closed:
                raise AttemptClosed(f"attempt {self.attempt_id!r} is closed")
            self._calls.add(token)
        return token

    def move(self, token: CallToken) -> None:
        """The call goes on in another task (a streamed reply is relayed by the response's task)."""
        token.task = asyncio.current_task()

    def leave(self, token: CallToken) -> None:
        with self._cond:
            self._calls.discard(token)
            self._cond.notify_all()

    def close(self, drain_s: float) -> int:
        """Refuse new calls, wait up to `drain_s` for running ones, cancel the rest; returns how
        many had to be cancelled."""
        with self._cond:
            self.closed = True
            if self._cond.wait_for(lambda: not self._calls, drain_s):
                return 0
            stragglers = list(self._calls)
        for token in stragglers:
            if token.task is not None:
                token.loop.call_soon_threadsafe(token.task.cancel)
        with self._cond:
            self._cond.wait_for(lambda: not self._calls, CANCEL_WAIT_S)
        return len(stragglers)

    @property
    def running(self) -> int:
        with self._cond:
            return len(self._calls)
