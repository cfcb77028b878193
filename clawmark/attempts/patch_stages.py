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
from collections.abc import Callable

from clawmark.attempts.base import AttemptState
from clawmark.attempts.gateway_link import close, container_url, executor_cap, host_url, register
from clawmark.attempts.grading import grade_patch
from clawmark.attempts.model_family import model_for_task
from clawmark.attempts.outcome import PatchOutcome, provider_outcome, unreached_outcome
from clawmark.attempts.patch_config import PatchAttemptConfig
from clawmark.attempts.phases import run_cleanup
from clawmark.attempts.seams import AttemptGateway, AttemptStore
from clawmark.attempts.session import claw_stopper, end_claw_processes, run_with_deadline
from clawmark.attempts.stages import (DEFAULT_BOUND_S, SETUP_MARGIN_S, AttemptStopped, Stage, TrackStages,
                                      plan_by_name)
from clawmark.attempts.usage_check import row_cross_check
from clawmark.attempts.watchdog import turn_watchdog
from clawmark.catalog.swe import SweInstance
from clawmark.claws import ClawAdapter, ClawContext, TurnResult
from clawmark.gateway.ledger import summarize_ledger
from clawmark.runtime.errors import RuntimeFailure
from clawmark.results import AttemptLayout, AttemptRow, Status
from clawmark.results.status import ErrorKind
from clawmark.swe.environment import InstanceEnv, InstanceEnvConfig
from clawmark.swe.patch_extract import ExtractedPatch

EXECUTOR_ROLE = "executor"


class PatchAttempt(AttemptState[PatchAttemptConfig, PatchOutcome]):
    """What one patch attempt holds while its stages run; each stage names the next."""

    outcome_type = PatchOutcome

    def __init__(self, instance: SweInstance, claw: ClawAdapter, model: str, attempt_id: str, layout: AttemptLayout,
                 gateway: AttemptGateway | None, config: PatchAttemptConfig, *, store: AttemptStore,
                 fields: dict[str, object], saved_hash: str, price_fallback: bool) -> None:
        super().__init__(claw, model, attempt_id, layout, gateway, config, store=store, fields=fields,
                         saved_hash=saved_hash, price_fallback=price_fallback, first_stage=PROVISION.name)
        self.instance = instance
        self.call_model = model_for_task(model, instance.instance_id)  # the row keeps the family name
        self.env: InstanceEnv | None = None
        self.provisioned = False
        self.turn_result: TurnResult | None = None
        self.patch: ExtractedPatch | None = None


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
        s.image_id = s.env.image_id  # the instance image's: the container may start from its stripped image
    s.provisioned = True
    tokens = register(s.gateway, s.attempt_id, {EXECUTOR_ROLE: s.call_model}, _caps(s), s.layout.ledger,
                      params=dict(s.config.model_params), fallback_price=s.config.fallback_price, claw=s.claw)
    s.ctx.gateway_token = tokens[EXECUTOR_ROLE]  # the attempt's only role: no other token exists
    s.next_stage = EXECUTOR_TURN.name


def executor_turn(s: PatchAttempt) -> None:
    with s.clock.phase("executor"):
        s.turn_result = turn = _drive(s, s.ctx)
    _save_turn(s, turn)
    ended = (provider_outcome(s.layout.ledger, EXECUTOR_ROLE, 1, turn.error_kind)
             or unreached_outcome(s.layout.ledger, EXECUTOR_ROLE, turn, s.claw.calls_model))
    if ended is not None:
        raise AttemptStopped(ended.error_message or str(ended.status), ended)
    s.next_stage = EXTRACT.name


def extract(s: PatchAttempt) -> None:
    from clawmark.swe.patch_extract import extract_patch  # per call: a test stands in for extract_patch

    with s.clock.phase("extract"):
        patch = extract_patch(s.ctx.sandbox, s.instance.base_commit)
    s.layout.patch.write_text(patch.clean)
    s.layout.raw_patch.write_text(patch.raw)
    s.patch, s.next_stage = patch, TEARDOWN.name


def teardown(s: PatchAttempt) -> None:
    """Agent deleted, container removed, attempt closed at the gateway: each once, each logged
    (never raised) when it fails; the ledger is complete only after the close has drained."""
    if s.provisioned and not s.cleaned_up:
        run_cleanup(s.layout, "delete_agent", lambda: s.claw.delete_agent(s.ctx))
        run_cleanup(s.layout, "teardown", lambda: s.env.__exit__(None, None, None))
        run_cleanup(s.layout, "close", lambda: close(s.gateway, s.attempt_id, drain_s=s.config.stop_grace_s))
    s.cleaned_up, s.next_stage = True, EVALUATE.name


def evaluate(s: PatchAttempt) -> None:
    turn = s.turn_result
    if s.patch is None:  # the plan runs evaluate only after extract-patch: a bug of ours if not
        raise RuntimeError("evaluate before the patch was taken")
    note = None if turn is None or turn.success else f"claw {turn.exit_status}: {turn.error or ''}".strip()
    outcome = grade_patch(s.instance, s.patch, s.claw.name, s.model, s.layout, s.config, s.clock, note)
    if outcome.status is Status.INFRA_ERROR:  # no image, engine trouble: the patch is not to blame
        raise EvaluatorInfraFailure(outcome)
    if turn is not None and turn.timeout:  # still graded, but the row says the claw ran out of time
        outcome = outcome.model_copy(update={"error_kind": ErrorKind.TIMEOUT})
    s.outcome, s.next_stage = outcome, None


def record(s: PatchAttempt) -> AttemptRow:
    outcome = (s.outcome or PatchOutcome.harness(RuntimeError("no stage set an outcome"), "attempt"))
    return s.commit(_row(s, outcome.model_copy(update={"image_id": s.image_id})))


def _failed_as(phase: str) -> Callable[[PatchAttempt, BaseException], None]:
    def failed(s: PatchAttempt, exc: BaseException) -> None:
        if isinstance(exc, EvaluatorInfraFailure):
            s.outcome = exc.outcome
        elif isinstance(exc, AttemptStopped) and isinstance(exc.outcome, PatchOutcome):
            s.outcome = exc.outcome
        else:
            s.outcome = PatchOutcome.infra(exc, phase)

    return failed


def _teardown_failed(s: PatchAttempt, exc: BaseException) -> None:
    """Only the stage's outer bound can fail it: logged like any clean-up failure (the janitor
    reaps what is left), and the patch already taken is still evaluated."""
    run_cleanup(s.layout, "teardown", lambda: (_ for _ in ()).throw(exc))
    s.cleaned_up, s.next_stage = True, EVALUATE.name


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


# provision ─► executor-turn ─► extract-patch ─► teardown ─► evaluate: each names the next on the state
PATCH_STAGES = TrackStages(plan_by_name({stage.name: stage for stage in (PROVISION, EXECUTOR_TURN, EXTRACT,
                                                                          TEARDOWN, EVALUATE)}), TEARDOWN, RECORD)


def _context(s: PatchAttempt) -> ClawContext:
    host = host_url(s.gateway, s.attempt_id, EXECUTOR_ROLE)
    inside = s.claw.runs_in_container
    return ClawContext(
        attempt_id=s.attempt_id,
        gateway_url=container_url(s.gateway, s.attempt_id, EXECUTOR_ROLE) if inside else host,
        host_gateway_url=host, ledger_path=s.layout.ledger, model=s.call_model, budgets=s.config.budgets,
        host_dir=s.layout.transcript, gold_patch=s.instance.patch if s.claw.needs_gold_patch else None,
    )


def _environment(s: PatchAttempt, ctx: ClawContext) -> InstanceEnv:
    labels = {"clawmark.attempt": s.attempt_id, "clawmark.claw": s.claw.name}
    wiring = s.claw.docker_args(ctx)
    if s.config.executor_user and not wiring.get("user"):
        wiring["user"] = s.config.executor_user
    return InstanceEnv(s.instance, InstanceEnvConfig(**wiring, labels=labels))


def _drive(s: PatchAttempt, ctx: ClawContext) -> TurnResult:
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


def _save_turn(s: PatchAttempt, turn: TurnResult) -> None:
    (s.layout.logs / "turn-0.json").write_text(turn.model_dump_json(indent=2))
    usage = s.claw.collect_usage(s.ctx)  # the claw's own figures: a cross-check of the ledger
    if usage is not None:
        # json.dumps keeps NaN (an unpriced cost) as NaN; pydantic's JSON would write null
        (s.layout.logs / "claw-usage.json").write_text(json.dumps(usage.model_dump(), indent=2))


def _caps(s: PatchAttempt) -> dict[str, float]:
    return {EXECUTOR_ROLE: executor_cap(s.config, s.claw.calls_model)}


def _row(s: PatchAttempt, outcome: PatchOutcome) -> AttemptRow:
    layout = s.layout
    return AttemptRow.from_usage(
        summarize_ledger(layout.ledger), caps=_caps(s), **s.row_fields(),
        **row_cross_check(layout.logs, layout.ledger),  # the claw's own usage against the ledger
        **outcome.row_fields(),
    )
