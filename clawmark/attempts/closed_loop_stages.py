"""The environment stages of a closed-loop attempt and its state: provision (pre_exec on the host,
the task container) ─► inject (sources, skills, services; the desktop of a headed task; the
gateway routes) ─► cycles (clawmark/attempts/closed_loop_cycle.py) ─► teardown (agent deleted,
container down, routes gone: always) ─► record (row committed last).

Set-up failures are typed: a pre_exec script failing is `pre_exec_failed`; a service that exits
non-zero or never becomes ready, the engine or the image failing is `infra_error` (the service
log is in logs/ — TaskEnv saves it); anything else raised is our bug (harness_error).

Live-environment steps run once per attempt whatever is retried: pre_exec is keyed by the task's
content and snapshot mode, the package injection and service bootstrap by the container they
went into. A retried inject whose services did not finish starts from a fresh container (a half
bootstrapped one cannot be trusted), without running pre_exec again. Each stage run is announced
to the gateway first, so a retried supervise or follow-up replays the model calls its failed run
already made and paid for (clawmark/gateway/replay.py).
"""

from __future__ import annotations

import dataclasses
import json

from clawmark.attempts.closed_loop_config import ClosedLoopAttemptConfig
from clawmark.attempts.closed_loop_cycle import TURN_STAGES
from clawmark.attempts.closed_loop_state import ClosedLoopAttempt
from clawmark.attempts.gateway_link import VISION_SUFFIX, container_url, host_url, register, unregister
from clawmark.attempts.phases import run_cleanup
from clawmark.attempts.stages import DEFAULT_BOUND_S, SETUP_MARGIN_S, Stage, TrackStages, plan_by_name
from clawmark.attempts.usage_check import CLAW_USAGE_FILE, row_cross_check
from clawmark.catalog.task_credentials import executor_credentials, user_credentials
from clawmark.claws import ClawContext
from clawmark.gateway.ledger import summarize_ledger
from clawmark.results import AttemptRow, ClosedLoopOutcome, Status
from clawmark.taskenv import TaskEnv
from clawmark.taskenv.config import TaskEnvConfig, executor_user_of, runtime_profile
from clawmark.taskenv.errors import PreExecFailed
from clawmark.taskenv.container_layout import SKILLS_DIR, WORKSPACE
from clawmark.taskenv.headed import task_image
from clawmark.taskenv.package_guard import PackageChanged
from clawmark.webproxy import ProxiedTaskEnv
from clawmark.webproxy.proxied_task import row_web_counts

EXECUTOR_ROLE = "executor"
PACKAGE_DIR = "package"  # the attempt's copy of a task package with pre_exec scripts: supervisor side


def provision(s: ClosedLoopAttempt) -> None:
    with s.clock.phase("provision"):
        s.ctx = s.ctx or _context(s)
        s.env = s.env or _environment(s, s.ctx)
        # keyed by the cell's task hash (fixed at open); it runs in the attempt's copy of the package
        s.live_step(f"pre_exec:{s.fields['task_hash']}:{s.config.snapshot}", s.env.pre_exec)
        s.task = s.env.task  # that copy, references regenerated, is what is injected and judged
        _start_container(s)
    s.next_stage = INJECT.name


def inject(s: ClosedLoopAttempt) -> None:
    with s.clock.phase("provision"):
        key = f"prepare:{s.ctx.sandbox.container_id}"
        if f"began:{key}" in s.live_done and key not in s.live_done:  # a retry after a half bootstrap
            _stop_container(s)
            _start_container(s)
            key = f"prepare:{s.ctx.sandbox.container_id}"
        s.live_done.add(f"began:{key}")
        s.live_step(key, s.env.prepare)
        s.live_step(f"desktop:{s.ctx.sandbox.container_id}", lambda: s.headed.begin(s.ctx.sandbox))
    if not s.registered:
        _register(s)
    s.ctx.gateway_token = s.role_tokens[EXECUTOR_ROLE]
    s.next_stage = "executor-turn"


def provision_failed(s: ClosedLoopAttempt, exc: BaseException) -> None:
    if isinstance(exc, PreExecFailed):
        s.outcome = ClosedLoopOutcome.infra(exc, "pre_exec", Status.PRE_EXEC_FAILED, threshold=s.threshold)
    else:  # ServiceFailed, no image, engine: typed by name in the row
        s.outcome = ClosedLoopOutcome.infra(exc, "provision", threshold=s.threshold)


def teardown(s: ClosedLoopAttempt) -> None:
    """Claw usage saved, agent deleted, recording stopped, container down, routes gone: each
    once, each logged (never raised) when it fails."""
    if s.cleaned_up:
        return
    s.cleaned_up = True
    if s.agent_created:
        run_cleanup(s.layout, "collect_usage", lambda: _save_claw_usage(s))
    if s.registered:
        run_cleanup(s.layout, "delete_agent", lambda: s.claw.delete_agent(s.ctx))
    if s.container_up:
        run_cleanup(s.layout, "headed", lambda: s.headed.finish(s.ctx.sandbox))
        run_cleanup(s.layout, "teardown", lambda: _stop_container(s))
    if s.registered:
        run_cleanup(s.layout, "unregister", lambda: _unregister(s))
    if s.env is not None:
        run_cleanup(s.layout, "package", lambda: _release_package(s))


def teardown_failed(s: ClosedLoopAttempt, exc: BaseException) -> None:
    raise exc  # never in the loop: clean-up runs after it, directly when its task fails


def record(s: ClosedLoopAttempt) -> AttemptRow:
    outcome = s.outcome or ClosedLoopOutcome.harness(RuntimeError("no stage set an outcome"), "attempt")
    if s.package_changed is not None:  # the cell key no longer names what ran: an error, rerunnable
        outcome = ClosedLoopOutcome.infra(s.package_changed, "package", threshold=s.threshold)
    if s.registered:  # the container was ready: the row names its image
        outcome = outcome.model_copy(update={"image_id": s.image_id})
    return s.commit(_row(s, outcome))


def _start_container(s: ClosedLoopAttempt) -> None:
    s.ctx.sandbox = s.env.start()
    s.container_up, s.image_id = True, s.ctx.sandbox.image_id


def _stop_container(s: ClosedLoopAttempt) -> None:
    s.container_up = False
    s.env.stop()  # the package copy stays: a retried inject starts a fresh container from it


def _release_package(s: ClosedLoopAttempt) -> None:
    """The attempt's package copy pruned to the references it was judged against (package/ in its
    folder); the package itself checked unchanged, byte for byte."""
    try:
        s.env.release_package()
    except PackageChanged as exc:
        s.package_changed = exc


def _inject_bound(s: ClosedLoopAttempt) -> float:
    services = max(1, len(s.task.services))
    return services * (s.config.service_timeout_s + s.config.service_ready_s) + DEFAULT_BOUND_S


def _announced(stage: Stage[ClosedLoopAttempt]) -> Stage[ClosedLoopAttempt]:
    """The stage, telling the gateway first which run of it begins: the calls of a run it saw
    begin before (a retry) replay the answers already paid for (clawmark/gateway/replay.py)."""
    def run(s: ClosedLoopAttempt) -> object:
        if s.registered:
            s.gateway.begin_stage_run(s.attempt_id, stage.run_name(s), replay=stage.retry_safe)
        return stage.run(s)

    return dataclasses.replace(stage, run=run)


PROVISION = Stage("provision", provision, provision_failed)
INJECT = Stage("inject", inject, provision_failed, bound_s=_inject_bound)
TEARDOWN = Stage("teardown", teardown, teardown_failed, bound_s=lambda s: 2 * SETUP_MARGIN_S)
RECORD = Stage("record", record, teardown_failed, bound_s=lambda s: SETUP_MARGIN_S)
# provision ─► inject ─► (executor-turn ─► supervise ─► follow-up)…: each names the next on the state
CLOSED_LOOP_STAGES = TrackStages(
    plan_by_name({stage.name: _announced(stage) for stage in (PROVISION, INJECT, *TURN_STAGES.values())}),
    TEARDOWN, RECORD)


def _save_claw_usage(s: ClosedLoopAttempt) -> None:
    """The claw's own figures, a cross-check of the ledger (attempts/usage_check.py)."""
    usage = s.claw.collect_usage(s.ctx)
    if usage is not None:
        # json.dumps keeps NaN (an unpriced cost) as NaN; pydantic's JSON would write null
        (s.layout.logs / CLAW_USAGE_FILE).write_text(json.dumps(usage.model_dump(), indent=2))


def _context(s: ClosedLoopAttempt) -> ClawContext:
    host = host_url(s.gateway, s.attempt_id, EXECUTOR_ROLE)
    inside = s.claw.runs_in_container
    vision = host_url(s.gateway, s.attempt_id + VISION_SUFFIX, EXECUTOR_ROLE) if s.image_model else ""
    return ClawContext(
        attempt_id=s.attempt_id,
        gateway_url=container_url(s.gateway, s.attempt_id, EXECUTOR_ROLE) if inside else host,
        host_gateway_url=host, ledger_path=s.layout.ledger, model=s.models[EXECUTOR_ROLE],
        budgets=s.config.budgets, workspace=WORKSPACE, host_dir=s.layout.transcript,
        track="closed_loop", exec_user=env_config(s).executor_user, skills_dir=SKILLS_DIR,
        image_model=s.image_model, image_gateway_url=vision,
    )


def env_config(s: ClosedLoopAttempt) -> TaskEnvConfig:
    c = s.config
    labels = {"clawmark.attempt": s.attempt_id, "clawmark.claw": s.claw.name}
    # a task with gaps was refused before provisioning (clawmark/sweeps/cell_preflight.py)
    credentials, _gaps = executor_credentials(s.task, user_credentials(c.env_file), c.snapshot)
    return TaskEnvConfig(image=task_image(s.task, c.image), network_policy=c.network_policy, snapshot=c.snapshot,
                         base_skills=c.base_skills, service_timeout_s=c.service_timeout_s,
                         service_ready_s=c.service_ready_s, labels=labels, credentials=credentials,
                         executor_user=executor_user_of(runtime_profile(s.task, c.executor)))


def _environment(s: ClosedLoopAttempt, ctx: ClawContext) -> TaskEnv | ProxiedTaskEnv:
    config = env_config(s)
    extra = {k: v for k, v in s.claw.docker_args(ctx).items() if k in ("env", "volumes")}
    if extra:  # a claw running in the container brings its home and environment
        config = config.model_copy(update={k: {**getattr(config, k), **v} for k, v in extra.items()})
    if s.config.web is not None:  # the web proxy in front of the container (clawmark/webproxy)

        return ProxiedTaskEnv(s.task, config, s.layout.logs, s.config.web, s.layout.artifacts / "web",
                              work_dir=s.layout.dir / PACKAGE_DIR, before_services=s.headed.before_services())
    return TaskEnv(s.task, config, s.layout.logs, work_dir=s.layout.dir / PACKAGE_DIR,
                   before_services=s.headed.before_services())


def role_caps(config: ClosedLoopAttemptConfig) -> dict[str, float]:
    """Each role's own cost cap: the executor's (`budgets.cost_usd`) is its alone, each judge
    role has `judge_budget_usd`, so an executor that spends its cap still has its turn judged."""
    judge = config.judge_budget_usd
    return {EXECUTOR_ROLE: config.budgets.cost_usd, "supervisor": judge, "user_simulator": judge}


def _register(s: ClosedLoopAttempt) -> None:
    s.role_tokens = register(s.gateway, s.attempt_id, dict(s.models), role_caps(s.config), s.layout.ledger,
                             params=dict(s.config.model_params), fallback_price=s.config.fallback_price,
                             image_model=s.image_model, claw=s.claw)
    s.registered = True


def _unregister(s: ClosedLoopAttempt) -> None:
    unregister(s.gateway, s.attempt_id)


def _row(s: ClosedLoopAttempt, outcome: ClosedLoopOutcome) -> AttemptRow:
    layout, config = s.layout, s.config
    summary = summarize_ledger(layout.ledger) if layout.ledger.is_file() else {}
    cross_check = row_cross_check(layout.logs, layout.ledger)  # never costs the row
    layout.usage.write_text(json.dumps(summary, indent=2, default=str))
    layout.outcome.write_text(outcome.model_dump_json(indent=2))
    return AttemptRow.from_usage(
        summary, caps=role_caps(config), **s.row_fields(), **outcome.row_fields(),
        network_policy=config.network_policy, snapshot_mode=config.snapshot,
        **row_web_counts(layout.artifacts / "web"), **cross_check,
        runtime_profile=runtime_profile(s.task, config.executor), judge_mode=config.judge,
        supervisor_model=s.models["supervisor"],
    )
