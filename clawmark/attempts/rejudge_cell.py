"""Judge the saved turns of one finished closed-loop attempt again, with another supervisor model.

What the supervise stage read is all in the attempt's folder: each `cycles/<n>/` holds the
executor's transcript after the turn, the results snapshot, the desktop screenshot, the check
results and the turn's TurnResult; the attempt's `config.json` names the task file and protocol.
The re-judge reads those, asks the new supervisor (billed at the gateway to the supervisor role
of a new attempt id, on the new cell's ledger), and applies the stop order to its decisions.

No executor runs and no follow-up is written: turn n+1 of the saved attempt is what the executor
did after the original judge's follow-up, so the new judge sees it only while its own decisions
ask to continue. A continue on the last saved turn ends the attempt as if no follow-up were left
(budget_exhausted, or fail on a fail verdict), unless the world cut the executor's next turn before
it was judged: then the attempt ends with that error, as it did. Checks are facts computed in code from the same
results snapshot: their saved results are reused, and run again only when a turn has none.
"""

from __future__ import annotations

import json
import math
import shutil
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from clawmark.attempts.closed_loop_config import ClosedLoopAttemptConfig
from clawmark.attempts.closed_loop_judging import decide_turn, turn_evidence
from clawmark.results.outcome import ClosedLoopOutcome
from clawmark.attempts.closed_loop_record import CycleRecord, resolve
from clawmark.attempts.closed_loop_transcript import visible_messages, write_json
from clawmark.attempts.gateway_link import host_url, register
from clawmark.attempts.seams import AttemptGateway
from clawmark.catalog.task import ClosedLoopTask
from clawmark.claws import TurnResult
from clawmark.gateway.ledger import summarize_ledger
from clawmark.judge.chat import ChatFn, gateway_chat, role_settings
from clawmark.judge.checks import CheckResult, check_image, run_checks
from clawmark.judge.outcome import error_status
from clawmark.results import AttemptLayout, AttemptRow, Status, is_error
from clawmark.results.usage import RoleUsage
from clawmark.stopwatch import Stopwatch

SUPERVISOR_ROLE = "supervisor"
# What a re-judged cycle folder keeps of the original turn: the executor's side, the checks, and the
# follow-up the executor got next with its leak flags (so a re-judge can itself be judged again).
TURN_INPUTS = ("prompt.txt", "turn.json", "transcript", "results", "screen.png", "checks.json", "feedback.txt",
               "leak.json")
# Carried from the judged attempt: facts of the executor's run that no judge changes.
CARRIED_FIELDS = ("track", "task_id", "task_hash", "category", "capability", "language", "claw", "claw_version",
                  "claw_settings_hash", "claw_profile", "claw_profile_fixed", "model", "seed", "protocol_version",
                  "scripted_model",
                  "network_policy", "snapshot_mode", "runtime_profile", "price_fallback", "claw_reported_input_tokens",
                  "claw_reported_output_tokens", "claw_reported_cost_usd", "usage_mismatch", "web_hits", "web_misses")


class RejudgeError(ValueError):
    """The saved attempt cannot be judged again as it is (names the file and what was expected)."""


def judged_turns(source_dir: Path) -> list[Path]:
    """Cycle folders of turns the original supervise stage reached (its checks or decision saved)."""
    cycles = source_dir / "cycles"
    folders = sorted((p for p in cycles.iterdir() if p.is_dir() and p.name.isdigit()), key=lambda p: int(p.name)) \
        if cycles.is_dir() else []
    judged = []
    for folder in folders:
        if not ((folder / "checks.json").is_file() or (folder / "decision.json").is_file()):
            break  # the attempt stopped before this turn was judged: later ones cannot exist
        judged.append(folder)
    return judged


def rejudge_attempt(source: AttemptRow, source_dir: Path, task: ClosedLoopTask, protocol: ClosedLoopAttemptConfig, *,
                    layout: AttemptLayout, gateway: AttemptGateway, supervisor: str, fields: dict[str, Any],
                    config_hash: str) -> AttemptRow:
    """The new row of `source` judged by `supervisor` (a resolved model name); its folder is `layout`."""
    turns = judged_turns(source_dir)
    if not turns:
        raise RejudgeError(f"{source_dir / 'cycles'}: no judged turn (the attempt ended {source.status} before judging)")
    started, watch = datetime.now(UTC), Stopwatch()
    attempt_id = uuid.uuid4().hex[:16]
    # No executor runs here: its route gets a zero cap (no call passes), the judge its own cap and token.
    tokens = register(gateway, attempt_id, {"executor": supervisor, SUPERVISOR_ROLE: supervisor},
                      {"executor": 0.0, SUPERVISOR_ROLE: protocol.judge_budget_usd}, layout.ledger)
    try:
        chat = _supervisor_chat(gateway, attempt_id, task, supervisor, tokens[SUPERVISOR_ROLE])
        records = _judge_turns(source, turns, task, protocol, layout, chat,
                               cut=(source_dir / "cycles" / str(len(turns))).is_dir())
    finally:
        gateway.unregister_attempt(attempt_id)
    outcome = resolve(records, task).model_copy(update={"image_id": source.image_id})
    return _row(source, outcome, layout, fields, attempt_id=attempt_id, supervisor=supervisor,
                config_hash=config_hash, started=started, judge_s=watch.seconds())


def _judge_turns(source: AttemptRow, turns: list[Path], task: ClosedLoopTask, protocol: ClosedLoopAttemptConfig,
                 layout: AttemptLayout, chat: ChatFn, *, cut: bool) -> list[CycleRecord]:
    """`cut`: the executor began another turn after the last judged one, and the world ended it
    (the source's error status): a judge that continues past the last judged turn meets it."""
    max_turns, followups = 1 + task.spec.codex.max_user_followups, task.spec.codex.max_user_followups
    records: list[CycleRecord] = []
    for index, saved in enumerate(turns):
        folder = layout.cycle(index)
        _copy_inputs(saved, folder)
        last = index == len(turns) - 1
        record = _start(source, saved, index, last)
        web_dir = saved.parent.parent / "artifacts" / "web"  # what the judged attempt's web proxy refused
        _supervise(record, folder, task, protocol, chat, web_dir, turn=index + 1, max_turns=max_turns)
        # The follow-up the executor got after this turn (the original judge's); the new judge
        # writes none, so a continue on the last saved turn has no follow-up left.
        record.cycle.feedback = _read_text(saved / "feedback.txt")
        record.cycle.leak_flags = _read_json(saved / "leak.json", [])
        if last and cut and is_error(source.status) and _continues(record):
            record.fail_with(source.status, source.error_message or str(source.status), source.failure_reason or "")
        record.decide(followups_left=0 if last else followups - index)
        records.append(record)
        if record.stop is not None:
            break
    return records


def _continues(record: CycleRecord) -> bool:
    decision = record.cycle.decision
    return record.cycle.error is None and decision is not None and decision.verdict == "continue"


def _start(source: AttemptRow, saved: Path, index: int, last: bool) -> CycleRecord:
    turn_file = saved / "turn.json"
    if not turn_file.is_file():
        raise RejudgeError(f"{turn_file}: the turn's TurnResult (written after every executor turn) is missing")
    result = TurnResult.model_validate_json(turn_file.read_text(encoding="utf-8"))
    global_cut = result.timeout and last and source.status is Status.GLOBAL_TIMEOUT
    return CycleRecord.start(index, result, global_cut=global_cut)


def _supervise(record: CycleRecord, folder: Path, task: ClosedLoopTask, protocol: ClosedLoopAttemptConfig,
               chat: ChatFn, web_dir: Path, *, turn: int, max_turns: int) -> None:
    """The supervise stage's judging (attempts/closed_loop_judging.py) over the saved turn."""
    saved_checks = folder / "checks.json"
    if saved_checks.is_file():
        checks = [CheckResult.model_validate(c) for c in _read_json(saved_checks, [])]
    else:
        checks = run_checks(task, folder / "results", check_image())
        write_json(saved_checks, [c.model_dump() for c in checks])
    record.cycle.checks = checks
    evidence = turn_evidence(visible_messages(folder), folder, web_dir)
    try:
        decide_turn(record, folder, task, evidence, chat, turn=turn, max_turns=max_turns, snapshot=protocol.snapshot)
    except Exception as exc:  # noqa: BLE001 - a provider or gateway failure: the world's error, typed
        write_json(folder / "decision.json", {"error": f"{type(exc).__name__}: {exc}"})
        record.fail_with(error_status(exc), f"judge: {type(exc).__name__}: {exc}", type(exc).__name__)


def _supervisor_chat(gateway: AttemptGateway, attempt_id: str, task: ClosedLoopTask, supervisor: str,
                     token: str) -> ChatFn:
    """The host-side judge client over the new attempt's supervisor route (the gateway pins the model)."""
    settings = role_settings(task, SUPERVISOR_ROLE, supervisor)
    return gateway_chat(host_url(gateway, attempt_id, SUPERVISOR_ROLE), supervisor, token=token, **settings.params())


def _copy_inputs(saved: Path, folder: Path) -> None:
    for name in TURN_INPUTS:
        source = saved / name
        if source.is_dir():
            shutil.copytree(source, folder / name, symlinks=True, dirs_exist_ok=True)
        elif source.is_file() and not source.is_symlink():
            shutil.copy2(source, folder / name)


def _row(source: AttemptRow, outcome: ClosedLoopOutcome, layout: AttemptLayout, fields: dict[str, Any], *, attempt_id: str,
         supervisor: str, config_hash: str, started: datetime, judge_s: float) -> AttemptRow:
    summary = summarize_ledger(layout.ledger) if layout.ledger.is_file() else {}
    layout.usage.write_text(json.dumps(summary, indent=2, default=str))
    layout.outcome.write_text(outcome.model_dump_json(indent=2))
    # The executor's and simulator's spend is the judged attempt's; the supervisor's is this one's.
    judge = RoleUsage.from_totals(summary[SUPERVISOR_ROLE]) if SUPERVISOR_ROLE in summary else RoleUsage.zero()
    wall = source.wall.model_copy(update={"judge": judge_s, "total": _replace(source.wall.total, source.wall.judge,
                                                                              judge_s)})
    return AttemptRow(**{name: getattr(source, name) for name in CARRIED_FIELDS}, **fields, attempt_id=attempt_id,
                      **outcome.row_fields(), usage={**source.usage, SUPERVISOR_ROLE: judge}, wall=wall,
                      started_at=started, finished_at=datetime.now(UTC), config_hash=config_hash,
                      artifacts_dir=str(layout.dir), supervisor_model=supervisor, judge_mode="prompt",
                      rejudge_of=source.rejudge_of or source.attempt_id)  # a re-judge of a re-judge: the run itself


def _replace(total: float, old: float, new: float) -> float:
    return total if math.isnan(total) or math.isnan(old) else total - old + new


def _read_text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def _read_json(path: Path, default: object) -> Any:
    if not path.is_file():
        return default
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise RejudgeError(f"{path}: not JSON ({exc})") from None
