"""The per-turn stages of a closed-loop attempt: executor turn ─► supervise (results snapshot,
checks, supervisor) ─► follow-up (firewall, user simulator, rewriter, leak audit) ─► the stop
order (`clawmark.judge.outcome.next_action`, the only one) ─► next executor turn or the outcome.

Each cycle writes `cycles/<n>/` as it goes (prompt, turn, transcript, results, checks, decision,
simulator, feedback, leak flags), so an attempt cut anywhere still shows everything up to the cut.
A provider failure of the executor, or a supervisor or simulator that answers invalid twice,
ends the attempt through the stop order and marks its stage failed (AttemptStopped).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from clawmark.attempts.closed_loop_judging import follow_up as write_follow_up, supervise as judge, wants_follow_up
from clawmark.attempts.closed_loop_record import CycleRecord, resolve
from clawmark.attempts.closed_loop_state import ClosedLoopAttempt
from clawmark.attempts.closed_loop_transcript import visible_messages
from clawmark.attempts.outcome import model_error_status, provider_failure
from clawmark.attempts.session import run_with_deadline
from clawmark.attempts.stages import DEFAULT_BOUND_S, SETUP_MARGIN_S, AttemptStopped, Stage
from clawmark.attempts.watchdog import turn_watchdog
from clawmark.claws import ClawAdapter, ClawContext, TurnResult
from clawmark.gateway.ledger import read_ledger
from clawmark.judge.outcome import error_status, turn_error_status
from clawmark.results.outcome import ClosedLoopOutcome
from clawmark.results.status import Status
from clawmark.runtime.sandbox import Sandbox
from clawmark.stopwatch import Stopwatch


def executor_turn(s: ClosedLoopAttempt) -> None:
    if not s.agent_created:
        s.claw.post_container_start(s.ctx)
        s.claw.create_agent(s.ctx)
        s.agent_created = True
    turn, folder = s.turn - 1, s.layout.cycle(s.turn - 1)
    (folder / "prompt.txt").write_text(s.message, encoding="utf-8")
    remaining = s.total_limit - s.executor_s
    result = _run_turn(s, turn, min(s.turn_limit, remaining), folder)
    record = CycleRecord.start(turn, result, global_cut=result.timeout and remaining <= s.turn_limit)
    record.cycle.time_left = s.executor_s < s.total_limit
    if (capped := _executor_capped(s)) is not None:  # the turn is judged, and no turn follows it
        record.fail_with(Status.BUDGET_EXHAUSTED, capped, "executor_budget")
        record.cycle.time_left = False
    elif (failure := _provider_failure(s, result)) is not None:
        _stop(s, record.fail_with(*failure, "provider"))
    s.current, s.next_stage = record, "supervise"


def executor_turn_failed(s: ClosedLoopAttempt, exc: BaseException) -> None:
    if isinstance(exc, AttemptStopped):
        return  # the stop order has already closed the cycle
    if not s.agent_created:  # the claw could not be set up: no turn was taken
        s.outcome = ClosedLoopOutcome.infra(exc, "claw", threshold=s.threshold)
        return
    record = CycleRecord.start(s.turn - 1, None, global_cut=False)  # container gone, claw could not be driven
    _close(s, record.fail_with(Status.INFRA_ERROR, f"claw: {type(exc).__name__}: {exc}", type(exc).__name__))


def supervise(s: ClosedLoopAttempt) -> None:
    record, folder = s.current, s.layout.cycle(s.turn - 1)
    with s.clock.phase("judge"):
        s.headed.turn_end(s.ctx.sandbox, folder)  # the desktop as the turn left it (headed only)
        s.env.snapshot_results(folder / "results")
        messages = visible_messages(folder)
        s.evidence = judge(s, record, folder, messages, turns=(s.turn, s.max_turns))
    if s.evidence is None:  # the supervisor answered invalid twice
        _stop(s, record)
    if wants_follow_up(record, _followups_left(s, record)):
        s.next_stage = "follow-up"
    else:
        _close(s, record)


def follow_up(s: ClosedLoopAttempt) -> None:
    record = s.current
    with s.clock.phase("judge"):
        write_follow_up(s, record, s.layout.cycle(s.turn - 1), s.evidence, s.turn, s.max_turns)
    if record.cycle.error is not None:  # the simulator answered invalid twice
        _stop(s, record)
    _close(s, record)


def judging_failed(s: ClosedLoopAttempt, exc: BaseException) -> None:
    """Check container, engine, a judge's provider: the cycle ends with the world's error."""
    if isinstance(exc, AttemptStopped):
        return
    _close(s, s.current.fail_with(error_status(exc), f"judge: {type(exc).__name__}: {exc}", type(exc).__name__))


def _followups_left(s: ClosedLoopAttempt, record: CycleRecord) -> int:
    return s.followups - (record.cycle.turn - 1)


def _close(s: ClosedLoopAttempt, record: CycleRecord) -> None:
    """The stop order's answer for this cycle: the outcome, or the next turn's message."""
    record.decide(followups_left=_followups_left(s, record))
    s.records.append(record)
    s.current = s.evidence = None
    if record.stop is not None or len(s.records) >= s.max_turns:
        s.outcome, s.next_stage = resolve(s.records, s.task), None
    else:
        s.message, s.next_stage = record.cycle.feedback, "executor-turn"


def _stop(s: ClosedLoopAttempt, record: CycleRecord) -> None:
    _close(s, record)
    raise AttemptStopped(record.error_message or str(record.stop), s.outcome)


def _run_turn(s: ClosedLoopAttempt, turn: int, limit: float, folder: Path) -> TurnResult:
    claw, ctx = s.claw, s.ctx
    ctx.budgets = s.config.budgets.model_copy(update={"seconds": max(0.0, limit)})
    watch = Stopwatch()
    with s.clock.phase("executor"):
        result = run_with_deadline(lambda: claw.send_task(ctx, s.message, turn),
                                   max(0.0, limit) + s.config.deadline_grace_s, stop=executor_stopper(claw, ctx),
                                   grace_s=s.config.stop_grace_s, watchdog=turn_watchdog(claw, ctx))
    s.executor_s += watch.seconds()
    (folder / "turn.json").write_text(result.model_dump_json(indent=2))
    claw.backup_session(ctx, folder / "transcript")
    return result


def _provider_failure(s: ClosedLoopAttempt, result: TurnResult) -> tuple[Status, str] | None:
    failed = provider_failure(s.layout.ledger, "executor")
    status = model_error_status(failed.status) if failed is not None else turn_error_status(result)
    if status is None:
        return None
    detail = f"{failed.model}: {failed.error}" if failed is not None else (result.error or "reported by the claw")
    return status, f"model provider {result.error_kind or status} ({detail})"


def _executor_capped(s: ClosedLoopAttempt) -> str | None:
    """Why the executor can spend no more, when it reached its own cost cap (its vision calls
    included): the gateway refused a call, or the claw stopped itself at the cap (a zero cap
    counts only once a call was refused: a claw that calls no model is not capped). The judges
    have caps of their own, so the turn is still judged."""
    calls = [r for r in read_ledger(s.layout.ledger) if r.role == "executor" and not r.refused]
    spent = math.fsum(r.cost_usd for r in calls if not math.isnan(r.cost_usd))
    cap = s.config.budgets.cost_usd
    if 0 < cap <= spent or any(r.status == "budget_exceeded" for r in calls):
        return f"executor cost cap of ${cap:g} reached (spent ${spent:.4f})"
    return None


def _turn_bound(s: ClosedLoopAttempt) -> float:
    return s.turn_limit + s.config.deadline_grace_s + s.config.stop_grace_s + SETUP_MARGIN_S


def executor_stopper(claw: ClawAdapter, ctx: ClawContext) -> Callable[[], None]:
    """What ends a turn at its deadline in a task container: the claw's own stop hook and a kill
    of everything the executor user runs. The task's services run as root and live on for the
    next turn, and the gateway stays open for the judge (unlike the patch track's stopper)."""
    user = (ctx.exec_user or "1000").split(":")[0]
    kill = f"for i in 1 2 3; do pkill -KILL -U {user} 2>/dev/null; sleep 0.2; done; true"

    def stop() -> None:
        for step in (lambda: claw.stop(ctx),
                     lambda: ctx.sandbox.exec(["sh", "-c", kill], timeout_s=30, user="0")
                     if isinstance(ctx.sandbox, Sandbox) else None):
            try:
                step()
            except Exception:  # noqa: BLE001 - each step runs even if another fails
                pass

    return stop


TURN_STAGES = {
    "executor-turn": Stage("executor-turn", executor_turn, executor_turn_failed, retry_safe=False,
                           bound_s=_turn_bound, per_turn=True),
    "supervise": Stage("supervise", supervise, judging_failed, bound_s=lambda s: DEFAULT_BOUND_S, per_turn=True),
    "follow-up": Stage("follow-up", follow_up, judging_failed, bound_s=lambda s: DEFAULT_BOUND_S, per_turn=True),
}
