"""The cycles of a closed-loop attempt: executor turn → results snapshot → checks → supervisor →
stop order → firewall → user simulator → rewriter → leak audit → next turn.

Each cycle writes `cycles/<n>/` as it goes (prompt, turn, transcript, results, checks, decision,
simulator, feedback, leak flags), so an attempt cut anywhere still shows everything up to the cut.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from clawmark.attempts.closed_loop_outcome import LoopOutcome
from clawmark.attempts.closed_loop_record import CycleRecord, resolve
from clawmark.attempts.closed_loop_transcript import visible_messages
from clawmark.attempts.outcome import infra_exceptions, model_error_status, provider_failure
from clawmark.attempts.session import run_with_deadline
from clawmark.claws import TurnResult
from clawmark.gateway.errors import ModelError
from clawmark.results.status import Status


class CycleRunner:
    def __init__(self, session: Any, ctx: Any, env: Any):
        self.s, self.ctx, self.env = session, ctx, env
        spec, config = session.task.spec, session.config
        self.followups = spec.codex.max_user_followups
        self.turn_limit = float(config.turn_timeout_s or spec.timeout_seconds)
        self.total_limit = float(config.total_timeout_s or spec.max_total_seconds)
        self.executor_s = 0.0  # executor turns only: judges and set-up do not count
        self.records: list[CycleRecord] = []

    @property
    def max_turns(self) -> int:
        return 1 + self.followups

    def run(self) -> LoopOutcome:
        message = self.s.task.prompt(self.s.config.snapshot)
        for turn in range(self.max_turns):
            record = self.cycle(turn, message)
            self.records.append(record)
            if record.stop is not None:
                break
            message = record.cycle.feedback
        return resolve(self.records, self.s.task)

    def cycle(self, turn: int, message: str) -> CycleRecord:
        folder = self.s.layout.cycle(turn)
        (folder / "prompt.txt").write_text(message, encoding="utf-8")
        remaining = self.total_limit - self.executor_s
        try:
            result = self._executor_turn(turn, message, min(self.turn_limit, remaining), folder)
        except infra_exceptions() as exc:  # container gone, claw could not be driven
            record = CycleRecord.start(turn, None, global_cut=False)
            record.fail_with(Status.INFRA_ERROR, f"claw: {type(exc).__name__}: {exc}", type(exc).__name__)
            return self._decided(record)
        record = CycleRecord.start(turn, result, global_cut=result.timeout and remaining <= self.turn_limit)
        record.cycle.time_left = self.executor_s < self.total_limit
        if (failure := self._provider_failure(result)) is not None:
            return self._decided(record.fail_with(*failure, "provider"))
        with self.s.clock.phase("judge"):
            self._judge(record, folder)
        return self._decided(record)

    def _decided(self, record: CycleRecord) -> CycleRecord:
        record.decide(followups_left=self.followups - (record.cycle.turn - 1))
        return record

    def _executor_turn(self, turn: int, message: str, limit: float, folder: Path) -> TurnResult:
        claw, ctx = self.s.claw, self.ctx
        ctx.budgets = self.s.config.budgets.model_copy(update={"seconds": max(0.0, limit)})
        began = time.monotonic()
        with self.s.clock.phase("executor"):
            result = run_with_deadline(lambda: claw.send_task(ctx, message, turn),
                                       max(0.0, limit) + self.s.config.deadline_grace_s,
                                       stop=executor_stopper(claw, ctx))
        self.executor_s += time.monotonic() - began
        (folder / "turn.json").write_text(result.model_dump_json(indent=2))
        claw.backup_session(ctx, folder / "transcript")
        return result

    def _provider_failure(self, result: TurnResult) -> tuple[Status, str] | None:
        from clawmark.judge.outcome import turn_error_status

        failed = provider_failure(self.s.layout.ledger, "executor")
        status = model_error_status(failed.status) if failed is not None else turn_error_status(result)
        if status is None:
            return None
        detail = f"{failed.model}: {failed.error}" if failed is not None else (result.error or "reported by the claw")
        return status, f"model provider {result.error_kind or status} ({detail})"

    def _judge(self, record: CycleRecord, folder: Path) -> None:
        from clawmark.attempts.closed_loop_judging import judge_cycle
        from clawmark.judge.outcome import error_status

        try:
            self.s.headed.turn_end(self.ctx.sandbox, folder)  # the desktop as the turn left it (headed only)
            self.env.snapshot_results(folder / "results")
            messages = visible_messages(self.s.claw, folder / "transcript")
            judge_cycle(self.s, record, folder, messages, turns=(record.cycle.turn, self.max_turns),
                        followups_left=self.followups - (record.cycle.turn - 1))
        except (*infra_exceptions(), ModelError) as exc:  # check container, engine, a judge's provider
            record.fail_with(error_status(exc), f"judge: {type(exc).__name__}: {exc}", type(exc).__name__)


def executor_stopper(claw: Any, ctx: Any) -> Any:
    """What ends a turn at its deadline in a task container: the claw's own stop hook and a kill
    of everything the executor user runs. The task's services run as root and live on for the
    next turn, and the gateway stays open for the judge (unlike the patch track's stopper)."""
    from clawmark.runtime.sandbox import Sandbox

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
