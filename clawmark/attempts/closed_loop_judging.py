"""The judging half of one cycle, over the gateway's role URLs: checks in their own container,
the supervisor's decision, the stop order, and on continue the firewall, user simulator,
rewriter and leak audit. Each step's output lands in the cycle folder before the next starts.

A supervisor or simulator that answers invalid twice ends the attempt as an infra error (its raw
replies are kept); a check that crashes is a failed check (the attempt goes on)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clawmark.attempts.closed_loop_record import CycleRecord
from clawmark.attempts.closed_loop_transcript import write_json


def judge_cycle(session: Any, record: CycleRecord, folder: Path, messages: list[dict], *, max_turns: int) -> None:
    from clawmark.judge.checks import check_image, run_checks
    from clawmark.judge.evidence import Evidence
    from clawmark.judge.supervisor import SupervisorFailed, judge_turn

    task, turn = session.task, record.turn + 1  # judges count turns from 1
    (folder / "feedback.txt").write_text("", encoding="utf-8")  # replaced when a follow-up is written
    checks = run_checks(task, folder / "results", check_image())
    write_json(folder / "checks.json", [c.model_dump() for c in checks])
    evidence = Evidence.from_attempt(messages, folder / "results")
    try:
        judgement = judge_turn(task, evidence, checks, role_chat(session, "supervisor"), turn=turn,
                               max_turns=max_turns, snapshot=session.config.snapshot)
    except SupervisorFailed as exc:
        write_json(folder / "decision.json", {"error": str(exc), "raw_outputs": exc.raw_outputs})
        record.stopped_by_error("supervisor", exc)
        record.failure_reason = "supervisor_invalid"
        return
    write_json(folder / "decision.json", judgement.model_dump(mode="json"))
    decision = judgement.decision
    record.verdict, record.recoverable, record.score = decision.verdict, decision.recoverable, decision.score
    record.checks_passed, record.checks_total = sum(c.passed for c in checks), len(checks)
    turns_left = max_turns - turn
    if decision.verdict == "continue" and record.gate_ok and turns_left > 0:
        _follow_up(session, record, folder, decision, evidence, turn, max_turns)
    if record.error_status is None:
        record.apply_stop_order(turns_left)


def _follow_up(session: Any, record: CycleRecord, folder: Path, decision: Any, evidence: Any, turn: int,
               max_turns: int) -> None:
    from clawmark.judge.firewall import firewall
    from clawmark.judge.leak_audit import audit_followup
    from clawmark.judge.rewriter import rewrite
    from clawmark.judge.simulator import SimulatorFailed, simulate

    task, view = session.task, firewall(decision)
    try:
        sim = simulate(task, view, evidence, role_chat(session, "user_simulator"), turn=turn,
                       max_turns=max_turns, snapshot=session.config.snapshot)
    except SimulatorFailed as exc:
        write_json(folder / "simulator.json", {"view": view.model_dump(), "error": str(exc),
                                               "raw_outputs": exc.raw_outputs})
        record.stopped_by_error("simulator", exc)
        record.failure_reason = "simulator_invalid"
        return
    write_json(folder / "simulator.json", {"view": view.model_dump(), "output": sim.model_dump()})
    record.feedback = rewrite(view, sim, task.language)
    (folder / "feedback.txt").write_text(record.feedback, encoding="utf-8")
    record.flags = [*sim.flags, *audit_followup(record.feedback, task)]
    write_json(folder / "leak.json", record.flags)


def role_chat(session: Any, role: str) -> Any:
    """A ChatFn of `role` over this attempt's gateway route (model pinned at registration)."""
    from clawmark.attempts.gateway_link import host_url
    from clawmark.judge.chat import gateway_chat, role_settings

    settings = role_settings(session.task, role, session.models[role])  # type: ignore[arg-type]
    return gateway_chat(host_url(session.gateway, session.attempt_id, role), settings.model, **settings.params())

