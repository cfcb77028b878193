"""The judging half of one cycle, over the gateway's role URLs: checks in their own container and
the supervisor's decision (`supervise`); on continue the firewall and the gated follow-up: user
simulator, rewriter, leak audit, one redacted retry, the neutral line (`follow_up`). Both judges
read the executor's work inside the attempt's fence (clawmark.judge.fence). Each step's output
lands in the cycle folder before the next starts.

A supervisor or simulator that answers invalid twice ends the attempt as an infra error (its raw
replies are kept); a check that crashes is a failed check (the attempt goes on)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from clawmark.attempts.closed_loop_record import CycleRecord
from clawmark.attempts.closed_loop_state import ClosedLoopAttempt
from clawmark.attempts.closed_loop_transcript import write_json
from clawmark.attempts.gateway_link import container_url, host_url
from clawmark.judge.agent import AgentRunConfig, WorkspaceEvidence, agent_chat
from clawmark.catalog.task import ClosedLoopTask
from clawmark.judge.chat import ChatFn, Role, gateway_chat, role_settings
from clawmark.judge.checks import check_image, run_checks
from clawmark.judge.evidence import Evidence
from clawmark.judge.fence import Fence
from clawmark.judge.info_firewall import firewall
from clawmark.judge.followup import gated_follow_up
from clawmark.judge.simulator import SimulatorFailed
from clawmark.judge.supervisor import SupervisorFailed, judge_turn
from clawmark.judge.workspace import build_role_workspace
from clawmark.results import AttemptLayout
from clawmark.results.status import Status
from clawmark.results.transcript import TranscriptMessage
from clawmark.webproxy.proxied_task import blocked_requests_note


def supervise(session: ClosedLoopAttempt, record: CycleRecord, folder: Path, messages: list[TranscriptMessage], *,
              turns: tuple[int, int]) -> Evidence | None:
    """Checks and the supervisor's decision on executor turn turns[0] (1-based) of turns[1];
    fills record.cycle and returns the evidence the follow-up needs (None when the supervisor
    failed: the record says so)."""
    task, (turn, max_turns), cycle = session.task, turns, record.cycle
    (folder / "feedback.txt").write_text("", encoding="utf-8")  # replaced when a follow-up is written
    cycle.checks = run_checks(task, folder / "results", check_image())
    write_json(folder / "checks.json", [c.model_dump() for c in cycle.checks])
    evidence = turn_evidence(messages, folder, session.layout.artifacts / "web")
    with judge_for(session, "supervisor", folder, evidence, turns) as (chat, shown):
        judged = decide_turn(record, folder, task, shown, chat, turn=turn, max_turns=max_turns,
                             snapshot=session.config.snapshot, fence=attempt_fence(session))
    return evidence if judged else None


def turn_evidence(messages: list[TranscriptMessage], folder: Path, web_dir: Path) -> Evidence:
    """What the supervisor reads of one turn (its cycle folder): the transcript, the results
    snapshot, the desktop screenshot of a headed task (taskenv/headed.py) and the requests the
    attempt's web proxy (its artifacts' `web/`) refused. The supervise stage and `clawmark
    rejudge` both build it here, so a re-judge reads what the first judge read."""
    evidence = Evidence.from_attempt(messages, folder / "results")
    evidence.add_screenshots([p for p in [folder / "screen.png"] if p.is_file()])
    evidence.notes += blocked_requests_note(web_dir)
    return evidence


def decide_turn(record: CycleRecord, folder: Path, task: ClosedLoopTask, evidence: Evidence, chat: ChatFn, *,
                turn: int, max_turns: int, snapshot: bool, fence: Fence | None = None) -> bool:
    """The supervisor's decision on the turn's evidence and `record.cycle.checks`, saved as
    `decision.json` and set on the record; False (the record failed, the raw replies saved) when
    it answered invalid twice."""
    try:
        judgement = judge_turn(task, evidence, record.cycle.checks, chat, turn=turn, max_turns=max_turns,
                               snapshot=snapshot, fence=fence)
    except SupervisorFailed as exc:
        write_json(folder / "decision.json", {"error": str(exc), "raw_outputs": exc.raw_outputs})
        record.fail_with(Status.INFRA_ERROR, f"supervisor: {exc}", "supervisor_invalid")
        return False
    write_json(folder / "decision.json", judgement.model_dump(mode="json"))
    record.cycle.decision = judgement.decision
    return True


def wants_follow_up(record: CycleRecord, followups_left: int) -> bool:
    """The user simulator writes a follow-up only when the supervisor asked to continue a turn
    that completed, with follow-ups and executor time left."""
    cycle = record.cycle
    return (cycle.decision is not None and cycle.decision.verdict == "continue" and cycle.gate.complete
            and followups_left > 0 and cycle.time_left)


def follow_up(session: ClosedLoopAttempt, record: CycleRecord, folder: Path, evidence: Evidence, turn: int,
              max_turns: int) -> None:
    """The gated follow-up (clawmark.judge.followup): a draft the leak audit flags is never sent."""
    task, cycle = session.task, record.cycle
    view = firewall(cycle.decision)
    try:
        with judge_for(session, "user_simulator", folder, evidence, (turn, max_turns), view.model_dump()) as (chat,
                                                                                                         shown):
            sent = gated_follow_up(task, view, shown, chat, turn=turn, max_turns=max_turns,
                                   snapshot=session.config.snapshot, fence=attempt_fence(session))
    except SimulatorFailed as exc:
        write_json(folder / "simulator.json", {"view": view.model_dump(), "error": str(exc),
                                               "raw_outputs": exc.raw_outputs})
        record.fail_with(Status.INFRA_ERROR, f"user simulator: {exc}", "simulator_invalid")
        return
    write_json(folder / "simulator.json", {"view": view.model_dump(), "output": sent.outputs[-1].model_dump(),
                                           "sent": sent.sent, "blocked_drafts": [d.model_dump() for d in
                                                                                 sent.blocked_drafts],
                                           "earlier_outputs": [o.model_dump() for o in sent.outputs[:-1]]})
    cycle.feedback, cycle.leak_flags, cycle.leak_blocked = sent.message, sent.flags, sent.blocked
    (folder / "feedback.txt").write_text(cycle.feedback, encoding="utf-8")
    write_json(folder / "leak.json", cycle.leak_flags)


@contextmanager
def judge_for(session: ClosedLoopAttempt, role: Role, folder: Path, evidence: Evidence, turns: tuple[int, int],
              firewall_view: dict | None = None) -> Iterator[tuple[ChatFn, Evidence]]:
    """The role's ChatFn and the evidence its prompt carries: under the prompt judge the bounded
    evidence over one model call; under the agent judge (clawmark.judge.agent) a codex run in the
    role's own container over its workspace, which lives only as long as the call (it holds the
    hidden references); each run's prompt, events and rollout stay in `cycles/<n>/agent/<role>/`."""
    if session.config.judge != "agent":
        yield role_chat(session, role), evidence
        return


    settings = role_settings(session.task, role, session.models[role])
    record = folder / "agent" / role
    with tempfile.TemporaryDirectory(prefix="clawmark-workspace-") as tmp:
        workspace = Path(tmp) / "workspace"
        manifest = build_role_workspace(workspace, role, task=session.task, snapshot=session.config.snapshot,
                                        turn=turns[0], max_turns=turns[1], cycle=folder, fence=attempt_fence(session),
                                        history=role_history(session.layout, role, turns[0]),
                                        firewall_view=firewall_view)
        record.mkdir(parents=True, exist_ok=True)
        write_json(record / "workspace_manifest.json", manifest)
        chat = agent_chat(workspace, record, model=settings.model, reasoning_effort=settings.reasoning_effort,
                          base_url=container_url(session.gateway, session.attempt_id, role),
                          token=session.role_tokens[role], role=role, ledger=session.layout.ledger,
                          config=AgentRunConfig(labels={"clawmark.attempt": session.attempt_id}))
        yield chat, WorkspaceEvidence(**evidence.model_dump())


def role_history(layout: AttemptLayout, role: str, turn: int) -> list[dict]:
    """The role's answers of the cycles before `turn`, as upstream's role_history.jsonl keeps them
    (the supervisor's decisions; the simulator's messages), read back from the cycle folders."""
    history = []
    for earlier in range(1, turn):
        name = "decision.json" if role == "supervisor" else "simulator.json"
        path = layout.cycle(earlier - 1) / name
        saved = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        answer = saved.get("supervisor_decision") if role == "supervisor" else saved.get("output")
        if answer:
            history.append({"turn": earlier, **answer})
    return history


def attempt_fence(session: ClosedLoopAttempt) -> Fence:
    """The attempt's fence, drawn on first use and kept on the session: a rerun stage sends the
    same bytes (the gateway's replay store matches on them); a new attempt gets a new boundary."""
    if session.fence is None:
        session.fence = Fence.new()
    return session.fence


def role_chat(session: ClosedLoopAttempt, role: Role) -> ChatFn:
    """A ChatFn of `role` over this attempt's gateway route (model pinned at registration)."""
    settings = role_settings(session.task, role, session.models[role])
    return gateway_chat(host_url(session.gateway, session.attempt_id, role), settings.model,
                        token=session.role_tokens[role],  # the role's own: never in a container
                        **settings.params())

