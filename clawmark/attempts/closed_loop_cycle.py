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
        self.max_turns = 1 + spec.codex.max_user_followups
        self.turn_limit = float(config.turn_timeout_s or spec.timeout_seconds)
        self.total_limit = float(config.total_timeout_s or spec.max_total_seconds)
        self.executor_s = 0.0  # executor turns only: judges and set-up do not count
        self.records: list[CycleRecord] = []

    def run(self) -> LoopOutcome:
        message = self.s.task.prompt(self.s.config.snapshot)
        for turn in range(self.max_turns):
            record = self.cycle(turn, message)
            self.records.append(record)
            if not record.stop and self.executor_s >= self.total_limit:
                record.stop, record.stop_reason = True, "global_timeout"
            if record.stop:
                break
            message = record.feedback
        return resolve(self.records, self.s.task, self.max_turns)

    def cycle(self, turn: int, message: str) -> CycleRecord:
        folder = self.s.layout.cycle(turn)
        (folder / "prompt.txt").write_text(message, encoding="utf-8")
        record = CycleRecord(turn=turn)
        remaining = self.total_limit - self.executor_s
        limit = min(self.turn_limit, remaining)
        try:
            result = self._executor_turn(turn, message, limit, folder)
        except infra_exceptions() as exc:
            return record.stopped_by_error("claw", exc)
        record.note_turn(result, global_cut=result.timeout and remaining <= self.turn_limit)
        if (failure := self._provider_failure(result)) is not None:
            return record.stopped_by_provider(*failure)
        with self.s.clock.phase("judge"):
            try:
                self._judge(record, folder)
            except infra_exceptions() as exc:  # check container, engine
                return record.stopped_by_error("judge", exc)
            except ModelError as exc:  # a judging role's provider failed: not the claw's doing
                return record.stopped_by_error("judge", exc, model_error_status(exc.kind) or Status.INFRA_ERROR)
        return record

    def _executor_turn(self, turn: int, message: str, limit: float, folder: Path) -> TurnResult:
        claw, ctx = self.s.claw, self.ctx
        ctx.budgets = self.s.config.budgets.model_copy(update={"seconds": max(0.0, limit)})
        began = time.monotonic()
        with self.s.clock.phase("executor"):
            result = run_with_deadline(lambda: claw.send_task(ctx, message, turn),
                                       max(0.0, limit) + self.s.config.deadline_grace_s)
        self.executor_s += time.monotonic() - began
        (folder / "turn.json").write_text(result.model_dump_json(indent=2))
        claw.backup_session(ctx, folder / "transcript")
        return result

    def _provider_failure(self, result: TurnResult) -> tuple[Any, str] | None:
        failed = provider_failure(self.s.layout.ledger, "executor")
        kind = failed.status if failed is not None else result.error_kind
        status = model_error_status(kind)
        if status is None:
            return None
        detail = f"{failed.model}: {failed.error}" if failed is not None else (result.error or "reported by the claw")
        return status, f"model provider {kind} ({detail})"[:1000]

    def _judge(self, record: CycleRecord, folder: Path) -> None:
        from clawmark.attempts.closed_loop_judging import judge_cycle

        evidence_messages = visible_messages(self.s.claw, folder / "transcript")
        self.env.snapshot_results(folder / "results")
        judge_cycle(self.s, record, folder, evidence_messages, max_turns=self.max_turns)
