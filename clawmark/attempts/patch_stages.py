"""The stages of a patch attempt over its state: provision ─► executor turn ─► extract patch ─►
teardown ─► evaluate ─► record (see clawmark/attempts/stages.py for how they are driven).

Provision builds the instance container at its base commit (history stripped, refused on a
leak) and registers the attempt at the gateway; the executor turn runs the claw's hooks and its
turn under the host-side deadline (budgets.seconds + deadline_grace_s), then reads the ledger:
a provider failure or a claw that never reached the gateway ends the attempt (AttemptStopped);
extract takes `git diff` against the base; teardown deletes the agent, removes the container
and closes the attempt at the gateway (always, once); evaluate grades the patch in a fresh
container; record writes the row, committed last.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from clawmark.attempts.gateway_link import close, container_url, executor_cap, host_url, register
from clawmark.attempts.grading import grade_patch
from clawmark.attempts.model_family import model_for_task
from clawmark.attempts.outcome import PatchOutcome, provider_outcome, unreached_outcome
from clawmark.attempts.phases import PhaseClock, run_cleanup
from clawmark.attempts.session import claw_stopper, end_claw_processes, run_with_deadline
from clawmark.attempts.stages import DEFAULT_BOUND_S, SETUP_MARGIN_S, AttemptStopped, Stage, TrackStages
from clawmark.attempts.usage_check import row_cross_check
from clawmark.attempts.watchdog import turn_watchdog
from clawmark.claws import ClawContext
from clawmark.gateway.cassettes import is_scripted
from clawmark.gateway.ledger import summarize_ledger
from clawmark.runtime.errors import RuntimeFailure
from clawmark.results import AttemptRow, Status
from clawmark.results.status import ErrorKind
from clawmark.swe.environment import InstanceEnv, InstanceEnvConfig

EXECUTOR_ROLE = "executor"


class PatchAttempt:
    """What one patch attempt holds while its stages run; stages read and fill it in order."""

    def __init__(self, instance: Any, claw: Any, model: str, attempt_id: str, layout: Any, gateway: Any,
                 config: Any, *, store: Any, fields: dict[str, Any], saved_hash: str, price_fallback: bool):
        self.instance, self.claw, self.model, self.attempt_id = instance, claw, model, attempt_id
        self.call_model = model_for_task(model, instance.instance_id)  # the row keeps the family name
        self.layout, self.gateway, self.config, self.store = layout, gateway, config, store
        self.fields, self.saved_hash, self.price_fallback = fields, saved_hash, price_fallback
        self.clock, self.started = PhaseClock(), datetime.now(UTC)
        self.ctx: ClawContext | None = None
        self.env: Any = None
        self.provisioned = self.cleaned_up = False
        self.turn: Any = None
        self.patch: Any = None
        self.image_id: str | None = None
        self.outcome: PatchOutcome | None = None

    def harness_failed(self, exc: BaseException) -> None:
        self.outcome = PatchOutcome.harness(exc, "attempt")


class EvaluatorInfraFailure(RuntimeFailure):
    """The evaluator could not run (image missing, engine): worth another go; `outcome` is the row's."""

    def __init__(self, outcome: PatchOutcome) -> None:
        super().__init__(outcome.error_message or str(outcome.status))
        self.outcome = outcome


def provision(s: PatchAttempt) -> None:
    with s.clock.phase("provision"):
        if s.env is not None:  # a retried provision: what the failed try left goes first
            run_cleanup(s.layout, "teardown", lambda: s.env.__exit__(None, None, None))
        s.ctx = _context(s)  # the gateway network lives in the engine too
        s.env = _environment(s, s.ctx)
        s.ctx.sandbox = s.env.__enter__()
        s.image_id = s.ctx.sandbox.image_id
    s.provisioned = True
    tokens = register(s.gateway, s.attempt_id, {EXECUTOR_ROLE: s.call_model}, _caps(s), s.layout.ledger,
                      params=dict(s.config.model_params), fallback_price=s.config.fallback_price)
    s.ctx.gateway_token = tokens[EXECUTOR_ROLE]  # the attempt's only role: no other token exists


def executor_turn(s: PatchAttempt) -> None:
    with s.clock.phase("executor"):
        s.turn = _drive(s, s.ctx)
    _save_turn(s)
    ended = (provider_outcome(s.layout.ledger, EXECUTOR_ROLE, 1, s.turn.error_kind)
             or unreached_outcome(s.layout.ledger, EXECUTOR_ROLE, s.turn, s.claw.calls_model))
    if ended is not None:
        raise AttemptStopped(ended.error_message or str(ended.status), ended)


def extract(s: PatchAttempt) -> None:
    from clawmark.swe.patch_extract import extract_patch  # per call: a test stands in for extract_patch

    with s.clock.phase("extract"):
        patch = extract_patch(s.ctx.sandbox, s.instance.base_commit)
    s.layout.patch.write_text(patch.clean)
    s.layout.raw_patch.write_text(patch.raw)
    s.patch = patch


def teardown(s: PatchAttempt) -> None:
    """Agent deleted, container removed, attempt closed at the gateway: each once, each logged
    (never raised) when it fails; the ledger is complete only after the close has drained."""
    if s.provisioned and not s.cleaned_up:
        run_cleanup(s.layout, "delete_agent", lambda: s.claw.delete_agent(s.ctx))
        run_cleanup(s.layout, "teardown", lambda: s.env.__exit__(None, None, None))
        run_cleanup(s.layout, "close", lambda: close(s.gateway, s.attempt_id, drain_s=s.config.stop_grace_s))
    s.cleaned_up = True


def evaluate(s: PatchAttempt) -> None:
    turn = s.turn
    note = None if turn is None or turn.success else f"claw {turn.exit_status}: {turn.error or ''}".strip()
    outcome = grade_patch(s.instance, s.patch, s.claw.name, s.model, s.layout, s.config, s.clock, note)
    if outcome.status is Status.INFRA_ERROR:  # no image, engine trouble: the patch is not to blame
        raise EvaluatorInfraFailure(outcome)
    if turn is not None and turn.timeout:  # still graded, but the row says the claw ran out of time
        outcome = outcome.model_copy(update={"error_kind": ErrorKind.TIMEOUT})
    s.outcome = outcome


def record(s: PatchAttempt) -> AttemptRow:
    outcome = (s.outcome or PatchOutcome.harness(RuntimeError("no stage set an outcome"), "attempt"))
    row = _row(s, outcome.model_copy(update={"image_id": s.image_id}))
    s.store.write(row)
    return row


def _failed_as(phase: str) -> Any:
    def failed(s: PatchAttempt, exc: BaseException) -> None:
        known = isinstance(exc, (AttemptStopped, EvaluatorInfraFailure))
        s.outcome = exc.outcome if known else PatchOutcome.infra(exc, phase)  # type: ignore[attr-defined]

    return failed


def _teardown_failed(s: PatchAttempt, exc: BaseException) -> None:
    """Only the stage's outer bound can fail it: logged like any clean-up failure (the janitor
    reaps what is left), and the patch already taken is still evaluated."""
    run_cleanup(s.layout, "teardown", lambda: (_ for _ in ()).throw(exc))
    s.cleaned_up = True


def _record_failed(s: PatchAttempt, exc: BaseException) -> None:
    raise exc  # never called: record runs after the loop, its failure is the caller's


def _turn_bound(s: PatchAttempt) -> float:
    return s.config.budgets.seconds + s.config.deadline_grace_s + 2 * s.config.stop_grace_s + SETUP_MARGIN_S


PROVISION = Stage("provision", provision, _failed_as("provision"))
EXECUTOR_TURN = Stage("executor-turn", executor_turn, _failed_as("claw"), retry_safe=False, bound_s=_turn_bound)
EXTRACT = Stage("extract-patch", extract, _failed_as("extract"))
TEARDOWN = Stage("teardown", teardown, _teardown_failed, bound_s=lambda s: s.config.stop_grace_s + SETUP_MARGIN_S)
EVALUATE = Stage("evaluate", evaluate, _failed_as("evaluate"),
                 bound_s=lambda s: s.config.eval_timeout_s + DEFAULT_BOUND_S)
RECORD = Stage("record", record, _record_failed, bound_s=lambda s: SETUP_MARGIN_S)


def plan(s: PatchAttempt) -> Stage | None:
    if s.outcome is not None:
        return None
    if not s.provisioned:
        return PROVISION
    if s.turn is None:
        return EXECUTOR_TURN
    if s.patch is None:
        return EXTRACT
    return EVALUATE if s.cleaned_up else TEARDOWN


PATCH_STAGES = TrackStages(plan, TEARDOWN, RECORD)


def _context(s: PatchAttempt) -> ClawContext:
    host = host_url(s.gateway, s.attempt_id, EXECUTOR_ROLE)
    inside = s.claw.runs_in_container
    return ClawContext(
        attempt_id=s.attempt_id,
        gateway_url=container_url(s.gateway, s.attempt_id, EXECUTOR_ROLE) if inside else host,
        host_gateway_url=host, ledger_path=s.layout.ledger, model=s.call_model, budgets=s.config.budgets,
        host_dir=s.layout.transcript, gold_patch=s.instance.patch if s.claw.needs_gold_patch else None,
    )


def _environment(s: PatchAttempt, ctx: ClawContext) -> Any:
    labels = {"clawmark.attempt": s.attempt_id, "clawmark.claw": s.claw.name}
    wiring = s.claw.docker_args(ctx)
    if s.config.executor_user and not wiring.get("user"):
        wiring["user"] = s.config.executor_user
    return InstanceEnv(s.instance, InstanceEnvConfig(**wiring, labels=labels))


def _drive(s: PatchAttempt, ctx: ClawContext) -> Any:
    claw = s.claw
    claw.post_container_start(ctx)
    claw.create_agent(ctx)
    message = claw.render_prompt(problem_statement=s.instance.problem_statement,
                                 base_commit=s.instance.base_commit, workspace=ctx.workspace)
    (s.layout.transcript / "prompt.txt").write_text(message)
    result = run_with_deadline(lambda: claw.send_task(ctx, message, 0),
                               s.config.budgets.seconds + s.config.deadline_grace_s,
                               stop=claw_stopper(claw, ctx, s.gateway, s.attempt_id), grace_s=s.config.stop_grace_s,
                               watchdog=turn_watchdog(claw, ctx))
    end_claw_processes(ctx.sandbox)  # what the claw left in the background ends before the patch is taken
    claw.backup_session(ctx, s.layout.transcript)
    return result


def _save_turn(s: PatchAttempt) -> None:
    (s.layout.logs / "turn-0.json").write_text(s.turn.model_dump_json(indent=2))
    usage = s.claw.collect_usage(s.ctx)  # the claw's own figures: a cross-check of the ledger
    if usage is not None:
        # json.dumps keeps NaN (an unpriced cost) as NaN; pydantic's JSON would write null
        (s.layout.logs / "claw-usage.json").write_text(json.dumps(usage.model_dump(), indent=2))


def _caps(s: PatchAttempt) -> dict[str, float]:
    return {EXECUTOR_ROLE: executor_cap(s.config, s.claw.calls_model)}


def _row(s: PatchAttempt, outcome: PatchOutcome) -> AttemptRow:
    layout = s.layout
    return AttemptRow.from_usage(
        summarize_ledger(layout.ledger), caps=_caps(s), **s.fields,
        **row_cross_check(layout.logs, layout.ledger),  # the claw's own usage against the ledger
        attempt_id=s.attempt_id, status=outcome.status, resolution=outcome.resolution,
        error_kind=outcome.error_kind, error_message=outcome.error_message, turns=outcome.turns,
        failure_reason=outcome.failure_reason, network_policy=outcome.network_policy, wall=s.clock.times(),
        started_at=s.started, finished_at=datetime.now(UTC), config_hash=s.saved_hash, image_id=outcome.image_id,
        scripted_model=is_scripted(s.model), artifacts_dir=str(layout.dir), price_fallback=s.price_fallback,
    )
