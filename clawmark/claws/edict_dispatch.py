"""The three-role double's dispatch (one ``send_task`` of :class:`clawmark.claws.edict.Edict3RoleClaw`):
entry agent, then the owner of the kanban task's state until a terminal state, then the entry
agent's report. :class:`RoleRun` is what it shares with the real court (``edict_court``).

The trace (who acted, the state before and after) is saved as ``edict-dispatch-turn<N>.json``
next to OpenClaw's own per-turn output, so a reader can follow the court's steps."""

from __future__ import annotations

import json
import math
import threading
from typing import Any, Protocol

from clawmark.claws.base import ClawContext, Stopwatch, TurnResult, Usage
from clawmark.claws.edict_config import EdictCheckout, EdictSetup


class RoleClaw(Protocol):
    """What a role run drives: `clawmark.claws.edict.CourtOnOpenClaw` (which imports this module)."""

    @property
    def setup(self) -> EdictSetup | EdictCheckout: ...

    @property
    def stopped(self) -> threading.Event: ...

    def role_turn(self, ctx: ClawContext, agent: str, message: str, label: str, seconds_left: float) -> TurnResult: ...

    def read_board(self, ctx: ClawContext) -> list[dict[str, Any]]: ...

    def edict_home(self, ctx: ClawContext) -> str: ...


class DispatchLimit(Protocol):
    max_dispatches: int


class ThreeRoleClaw(RoleClaw, Protocol):
    """The three-role double (`clawmark.claws.edict.Edict3RoleClaw`): its own routing rules and limit."""

    @property
    def setup(self) -> EdictSetup: ...

    @property
    def config(self) -> DispatchLimit: ...


def dispatch_message(task: dict[str, Any], board: str) -> str:
    return (f"Kanban task {task.get('id')} (\"{task.get('title', '')}\") is in state {task.get('state')}, "
            f"which is your part. The kanban is {board}. Do your part now and record the outcome on the "
            f"kanban with its command line, as your instructions say.")


def report_message(task: dict[str, Any]) -> str:
    return (f"Kanban task {task.get('id')} reached its final state {task.get('state')}. "
            f"Write the final report to the user now.")


class RoleRun:
    """Role turns of one dispatch, their trace and the one TurnResult that sums them up."""

    def __init__(self, claw: RoleClaw, ctx: ClawContext, turn: int, limit_s: float, entry: str):
        self.claw, self.ctx, self.turn, self.limit_s, self.entry = claw, ctx, turn, limit_s, entry
        self.roster = {a.id for a in claw.setup.agents}
        self.clock = Stopwatch()
        self.results: list[TurnResult] = []
        self.trace: list[dict[str, Any]] = []

    def _step(self, agent: str, message: str, label: str, seconds: float | None = None) -> TurnResult:
        state_before = self._states()
        result = self.claw.role_turn(self.ctx, agent, message, f"turn{self.turn}-{label}",
                                     self._left() if seconds is None else seconds)
        self.results.append(result)
        self.trace.append({"agent": agent, "label": label, "success": result.success, "exit_status": result.exit_status,
                           "duration_s": result.duration_s, "board_before": state_before, "board_after": self._states()})
        return result

    def _states(self) -> dict[str, Any]:
        return {t.get("id"): t.get("state") for t in self.claw.read_board(self.ctx)}

    def _left(self) -> float:
        return 0.0 if self.claw.stopped.is_set() else self.limit_s - self.clock.elapsed()

    def _finish(self, status: str, finish: str, error: str | None = None) -> TurnResult:
        self.ctx.host_dir.mkdir(parents=True, exist_ok=True)
        trace_file = self.ctx.host_dir / f"edict-dispatch-turn{self.turn}.json"
        trace_file.write_text(json.dumps({"status": status, "steps": self.trace}, ensure_ascii=False, indent=1))
        ok = finish == "stop"
        return TurnResult(success=ok, timeout=finish == "timeout", finish_reason=finish,  # type: ignore[arg-type]
                          exit_status=status, log_paths=[str(trace_file)] + [p for r in self.results for p in r.log_paths],
                          session_id=f"{self.ctx.attempt_id}-{self.entry}", duration_s=self.clock.elapsed(),
                          usage=_total(self.results), error=None if ok else f"edict {status}: {error or ''}"[:2000],
                          error_kind=next((r.error_kind for r in self.results if r.error_kind), None))


class Dispatch(RoleRun):
    claw: ThreeRoleClaw

    def __init__(self, claw: ThreeRoleClaw, ctx: ClawContext, turn: int, limit_s: float):
        self.rules = claw.setup.rules
        super().__init__(claw, ctx, turn, limit_s, self.rules.entry_agent)

    def run(self, message: str) -> TurnResult:
        before = {t.get("id"): t.get("state") for t in self.claw.read_board(self.ctx)}
        entry = self._step(self.rules.entry_agent, message, "entry")
        if not entry.success:
            return self._finish(entry.exit_status, entry.finish_reason, entry.error)
        task = self._active_task(before)
        if task is None:  # the entry agent answered by itself: nothing to dispatch
            return self._finish("answered", "stop")
        for number in range(self.claw.config.max_dispatches):
            if task.get("state") in self.rules.terminal_states:
                return self._report(task)
            task, failure = self._advance(task, number)
            if failure is not None:
                return failure
        return self._finish("dispatch_limit", "limit", f"still {task.get('state')} after "
                                                       f"{self.claw.config.max_dispatches} role turns")

    def _advance(self, task: dict[str, Any], number: int) -> tuple[dict[str, Any], TurnResult | None]:
        owner, state = self.rules.owner(task), task.get("state")
        if owner not in self.roster:
            return task, self._finish("no_owner", "error", f"state {state!r} maps to agent {owner!r}, not in agents.json")
        if self._left() <= 0:
            return task, self._finish("wall_clock", "timeout", f"dispatch limit of {self.limit_s:.0f} s reached")
        result = self._step(owner, dispatch_message(task, self._board_path()), f"role{number}-{owner}")
        if not result.success:
            return task, self._finish(result.exit_status, result.finish_reason, result.error)
        after = self._find(task.get("id"))
        if after is None or after.get("state") == state:
            return task, self._finish("stalled", "error", f"{owner} left task {task.get('id')} in state {state!r}")
        return after, None

    def _report(self, task: dict[str, Any]) -> TurnResult:
        if self._left() <= 0:
            return self._finish("wall_clock", "timeout", "no time left for the entry agent's report")
        report = self._step(self.rules.entry_agent, report_message(task), "report")
        if not report.success:
            return self._finish(report.exit_status, report.finish_reason, report.error)
        return self._finish(str(task.get("state")), "stop")

    def _active_task(self, before: dict[str, Any]) -> dict[str, Any] | None:
        """The task the entry agent opened or moved; else the latest one still open."""
        board = self.claw.read_board(self.ctx)
        changed = [t for t in board if before.get(t.get("id")) != t.get("state")]
        open_tasks = [t for t in board if t.get("state") not in self.rules.terminal_states]
        return (changed or open_tasks or [None])[-1]

    def _find(self, task_id: object) -> dict[str, Any] | None:
        return next((t for t in self.claw.read_board(self.ctx) if t.get("id") == task_id), None)

    def _board_path(self) -> str:
        return f"{self.claw.edict_home(self.ctx)}/data/tasks_source.json"


def _total(results: list[TurnResult]) -> Usage | None:
    usages = [r.usage for r in results if r.usage is not None]
    if not usages:
        return None
    return Usage(input_tokens=sum(u.input_tokens for u in usages), output_tokens=sum(u.output_tokens for u in usages),
                 cached_tokens=sum(u.cached_tokens for u in usages), calls=sum(u.calls for u in usages),
                 cost_usd=math.fsum(u.cost_usd for u in usages))
