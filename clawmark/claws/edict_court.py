"""The real EDICT court's dispatch (one ``send_task`` of :class:`clawmark.claws.edict.EdictClaw`),
by the rules of UniClawBench's in-container orchestrator for cft0808/edict:

* the front desk (``taizi``) gets the sovereign's words;
* then the kanban's latest task (by ``updatedAt``) is polled; each time its state changes, or it
  is ``Assigned`` to another ministry, the agent owning it gets a turn: the ministry named by its
  ``org`` (the JSON board's name for the backend's ``assignee_org``) when ``Assigned``, else the
  agent of its state. A state nobody owns (``Blocked``, ``Doing``...) dispatches nobody but is
  not an end: the court waits for a change;
* the court always ends with the front desk's report: at ``Done``/``Cancelled``, when the board
  has not changed for ``idle_report_s`` after the last change (30 s upstream), or when the time
  is up (a dispatch is skipped when less than ``min_turn_s`` would be left after the report's
  reserve).

One difference, for a benchmark's budget: upstream polls an empty board until the time is up;
here the idle period covers it too (the front desk answered alone, the report follows).
"""

from __future__ import annotations

import time
from typing import Any, Callable

from pydantic import BaseModel, Field

from clawmark.claws.base import ClawContext, TurnResult
from clawmark.claws.edict_config import EDICT_STATE_AGENTS
from clawmark.claws.edict_dispatch import RoleClaw, RoleRun

ENTRY = "taizi"
MINISTRIES = {"户部": "hubu", "礼部": "libu", "兵部": "bingbu", "刑部": "xingbu", "工部": "gongbu", "吏部": "libu_hr"}
FINAL_STATES = ("Done", "Cancelled")


class CourtRules(BaseModel, extra="forbid"):
    idle_report_s: float = Field(30.0, gt=0, description="Board unchanged this long after its last change: report.")
    poll_s: float = Field(3.0, gt=0, description="How often the board is read while nobody is dispatched.")
    report_reserve_s: float = Field(120.0, ge=0, description="Kept back from the limit for the final report.")
    min_turn_s: float = Field(45.0, gt=0, description="No dispatch with less than this left after the reserve.")
    max_dispatches: int = Field(24, ge=1, description="Role turns between the entry and the report.")


def latest_task(board: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not board:
        return None
    return max(board, key=lambda t: (str(t.get("updatedAt") or t.get("archivedAt") or ""), str(t.get("id") or "")))


def owner(task: dict[str, Any]) -> str | None:
    state, org = str(task.get("state") or ""), str(task.get("org") or task.get("assignee_org") or "")
    if state == "Assigned" and org in MINISTRIES:
        return MINISTRIES[org]
    return EDICT_STATE_AGENTS.get(state)


def dispatch_message(task: dict[str, Any]) -> str:
    org = f", department {task.get('org')}" if task.get("org") else ""
    return (f"[court] Task {task.get('id')} has entered state {task.get('state')}{org}. "
            f"Handle it as your duties say.")


def report_message(reason: str) -> str:
    return ("[court] The chain of departments should be done or nearly so. Check your inbox, gather the "
            "replies of the secretariat, the chancellery, the department of state affairs and the "
            "ministries, and give the sovereign your final conclusion in the original conversation "
            "(with the paths of what was produced). If a department has not delivered, carry the work "
            f"on yourself in this turn and conclude.\n(court trigger: {reason})")


class Court(RoleRun):
    def __init__(self, claw: RoleClaw, ctx: ClawContext, turn: int, limit_s: float, rules: CourtRules,
                 sleep: Callable[[float], None] = time.sleep):
        super().__init__(claw, ctx, turn, limit_s, ENTRY)
        self.rules, self.sleep = rules, sleep

    def run(self, message: str) -> TurnResult:
        entry = self._step(ENTRY, message, "entry", self._left() - self.rules.report_reserve_s)
        if not entry.success:
            return self._finish(entry.exit_status, entry.finish_reason, entry.error)
        seen: tuple[str, str] | None = None
        last_change, dispatches = self.clock.elapsed(), 0
        while self._polling_left() > 0:
            task = latest_task(self.claw.read_board(self.ctx))
            state, org = (str(task.get("state") or ""), str(task.get("org") or "")) if task else ("", "")
            if state in FINAL_STATES:
                return self._report(f"state={state}", state)
            if task is not None and (seen is None or state != seen[0] or (state == "Assigned" and org != seen[1])):
                agent = owner(task)
                if agent in self.roster:
                    if dispatches == self.rules.max_dispatches:
                        return self._report(f"dispatch limit state={state}", "dispatch_limit")
                    if self._polling_left() < self.rules.min_turn_s:
                        break
                    result = self._step(agent, dispatch_message(task), f"role{dispatches}-{agent}",
                                        self._polling_left())
                    dispatches += 1
                    if not result.success:
                        return self._finish(result.exit_status, result.finish_reason, result.error)
                seen, last_change = (state, org), self.clock.elapsed()
            elif self.clock.elapsed() - last_change >= self.rules.idle_report_s:
                return self._report(f"idle-after-dispatch state={state or 'none'}", "idle")
            else:
                self.sleep(min(self.rules.poll_s, max(0.0, self._polling_left())))
        if self.claw.stopped.is_set():  # the host's deadline: no time for anything, not even a report
            return self._finish("wall_clock", "timeout", "stopped at the attempt's deadline")
        return self._report("wall-clock timeout", "wall_clock")

    def _polling_left(self) -> float:
        return self._left() - self.rules.report_reserve_s

    def _report(self, reason: str, status: str) -> TurnResult:
        seconds = max(self._left(), min(self.rules.report_reserve_s, self.limit_s))
        report = self._step(ENTRY, report_message(reason), "report", seconds)
        if not report.success:
            return self._finish(report.exit_status, report.finish_reason, report.error)
        if status == "wall_clock":  # reported, but the court ran out of time: a typed limit
            return self._finish(status, "timeout", f"dispatch limit of {self.limit_s:.0f} s reached; taizi reported")
        return self._finish(status, "stop")
