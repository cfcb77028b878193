"""How a claw's turn is bounded, for both tracks: run under a host-side deadline in a thread,
watched by its watchdogs (clawmark/attempts/watchdog.py), and, when the deadline passes or a
watchdog fires, stopped (its own stop hook, every process in its container, its calls cut at the
gateway) before the attempt goes on."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable

from clawmark.attempts.gateway_link import close
from clawmark.attempts.seams import AttemptGateway
from clawmark.attempts.watchdog import EXIT_STATUS, Watchdog
from clawmark.claws import ClawAdapter, ClawContext, TurnResult
from clawmark.runtime.exec_target import ExecTarget
from clawmark.runtime.sandbox import Sandbox
from clawmark.stopwatch import Stopwatch

WATCH_EVERY_S = 1.0  # how often the watchdog looks at the ledger while the turn runs


class ClawDidNotStop(RuntimeError):
    """The claw's turn was still running after the deadline, its stop and the grace: nothing of
    the attempt can be trusted (a patch taken now could still change), so it is a harness error."""


def run_with_deadline(work: Callable[[], TurnResult], deadline_s: float, *,
                      stop: Callable[[], None] | None = None, grace_s: float = 30.0,
                      watchdog: Watchdog | None = None) -> TurnResult:
    """Run ``work()`` in a thread. Past the deadline, or when ``watchdog`` (a
    clawmark.attempts.watchdog.Watchdog) fires, ``stop()`` ends the claw (its processes killed,
    its host-side loop asked to stop, its calls cut at the gateway) and the thread is joined: a
    timeout result comes back only once nothing of the claw runs any more. A thread still alive
    after ``grace_s`` raises ClawDidNotStop."""
    box: dict[str, TurnResult | BaseException] = {}

    def target() -> None:
        try:
            box["result"] = work()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    watch = Stopwatch()
    # In a copy of this context: containers the claw starts carry the attempt's sweep/cell labels
    thread = threading.Thread(target=contextvars.copy_context().run, args=(target,), name="claw-turn", daemon=True)
    thread.start()
    fired = _join_watched(thread, deadline_s, watchdog)
    if thread.is_alive():
        if stop is not None:
            stop()
        thread.join(grace_s)
        if thread.is_alive():
            raise ClawDidNotStop(f"claw still running {grace_s:.0f} s after it was stopped at the "
                                 f"{deadline_s:.0f} s deadline")
        if fired is not None:
            steps = fired == "steps"  # a step limit is a length cut; a watchdog's stop is the claw's timeout
            return TurnResult(success=False, timeout=not steps, finish_reason="limit" if steps else "timeout",
                              exit_status=EXIT_STATUS[fired], duration_s=watch.elapsed(),
                              error=watchdog.message())
        return TurnResult(success=False, timeout=True, finish_reason="timeout", exit_status="host_deadline",
                          duration_s=deadline_s, error=f"claw stopped at the {deadline_s:.0f} s host deadline")
    if "error" in box:
        raise box["error"]
    return box["result"]


def _join_watched(thread: threading.Thread, deadline_s: float, watchdog: Watchdog | None) -> str | None:
    """Join ``thread`` until it ends, the deadline passes (None) or the watchdog fires (its reason)."""
    if watchdog is None:
        thread.join(deadline_s)
        return None
    watch = Stopwatch()
    while thread.is_alive() and (left := deadline_s - watch.seconds()) > 0:
        thread.join(min(WATCH_EVERY_S, left))
        if thread.is_alive() and (reason := watchdog.check()) is not None:
            return reason
    return None


def claw_stopper(claw: ClawAdapter, ctx: ClawContext, gateway: AttemptGateway | None = None,
                 attempt_id: str | None = None) -> Callable[[], None]:
    """What ends a claw at its deadline, for every kind of claw: its own stop hook (host-side
    loops), a kill of every process in its container (claws and tools inside), and — when the
    attempt ends with the turn (`gateway` given) — closing the attempt at the gateway (a call
    still running is cut and ledgered as abandoned, new ones are refused). A multi-turn attempt
    whose judge still needs the gateway passes no gateway. Each step runs even if another fails."""
    steps = [lambda: claw.stop(ctx), lambda: end_claw_processes(ctx.sandbox)]
    if gateway is not None and attempt_id is not None:
        steps.append(lambda: close(gateway, attempt_id, drain_s=0.0))

    def stop() -> None:
        for step in steps:
            try:
                step()
            except Exception:  # noqa: BLE001 - the join that follows tells whether the claw stopped
                continue

    return stop


def end_claw_processes(sandbox: ExecTarget | None) -> None:
    """SIGKILL the claw, its tools and whatever they started in the background, keeping the
    container itself alive for the patch. Only a real container: a test double's host is left alone."""
    if isinstance(sandbox, Sandbox):
        sandbox.end_processes()
