"""The environment stages of a closed-loop attempt and its state: provision (pre_exec on the host,
the task container) ─► inject (sources, skills, services; the desktop of a headed task; the
gateway routes) ─► cycles (clawmark/attempts/closed_loop_cycle.py) ─► teardown and record
(clawmark/attempts/closed_loop_finish.py); and the track's plan over them, CLOSED_LOOP_STAGES.

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

from clawmark.attempts.closed_loop_config import role_caps
from clawmark.attempts.closed_loop_cycle import TURN_STAGES
from clawmark.attempts.closed_loop_finish import RECORD, TEARDOWN
from clawmark.attempts.closed_loop_state import ClosedLoopAttempt
from clawmark.attempts.gateway_link import VISION_SUFFIX, container_url, host_url, register
from clawmark.attempts.stages import DEFAULT_BOUND_S, Stage, TrackStages, plan_by_name
from clawmark.catalog.task_credentials import executor_credentials, user_credentials
from clawmark.claws import ClawContext
from clawmark.results import ClosedLoopOutcome, Status
from clawmark.taskenv import TaskEnv
from clawmark.taskenv.config import TaskEnvConfig, executor_user_of, runtime_profile
from clawmark.taskenv.errors import PreExecFailed
from clawmark.taskenv.container_layout import SKILLS_DIR, WORKSPACE
from clawmark.taskenv.headed import task_image
from clawmark.webproxy import ProxiedTaskEnv

EXECUTOR_ROLE = "executor"
PACKAGE_DIR = "package"  # the attempt's copy of a task package with pre_exec scripts: supervisor side


def provision(s: ClosedLoopAttempt) -> None:
    with s.clock.phase("provision"):
        s.ctx = s.ctx or _context(s)
        s.env = s.env or _environment(s, s.ctx)
        # keyed by the cell's task hash (fixed at open); it runs in the attempt's copy of the package
        s.live_step(f"pre_exec:{s.fields['task_hash']}:{s.config.snapshot}", s.env.pre_exec)
        s.task = s.env.task  # that copy, references regenerated, is what is injected and judged
        s.start_container()
    s.next_stage = INJECT.name


def inject(s: ClosedLoopAttempt) -> None:
    with s.clock.phase("provision"):
        key = f"prepare:{s.ctx.sandbox.container_id}"
        if f"began:{key}" in s.live_done and key not in s.live_done:  # a retry after a half bootstrap
            s.stop_container()
            s.start_container()
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
# provision ─► inject ─► (executor-turn ─► supervise ─► follow-up)…: each names the next on the state
CLOSED_LOOP_STAGES = TrackStages(
    plan_by_name({stage.name: _announced(stage) for stage in (PROVISION, INJECT, *TURN_STAGES.values())}),
    TEARDOWN, RECORD)


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
                         cache_setup=c.cache_setup,
                         executor_user=executor_user_of(runtime_profile(s.task, c.executor)))


def _environment(s: ClosedLoopAttempt, ctx: ClawContext) -> TaskEnv | ProxiedTaskEnv:
    config = env_config(s)
    extra = s.claw.docker_args(ctx)
    if extra.get("env") or extra.get("volumes"):  # a claw running in the container brings its home and environment
        config = config.model_copy(update={"claw_env": dict(extra.get("env") or {}),
                                           "volumes": {**config.volumes, **(extra.get("volumes") or {})}})
    if s.config.web is not None:  # the web proxy in front of the container (clawmark/webproxy)

        return ProxiedTaskEnv(s.task, config, s.layout.logs, s.config.web, s.layout.artifacts / "web",
                              work_dir=s.layout.dir / PACKAGE_DIR, before_services=s.headed.before_services())
    return TaskEnv(s.task, config, s.layout.logs, work_dir=s.layout.dir / PACKAGE_DIR,
                   before_services=s.headed.before_services())


def _register(s: ClosedLoopAttempt) -> None:
    s.role_tokens = register(s.gateway, s.attempt_id, dict(s.models), role_caps(s.config), s.layout.ledger,
                             params=dict(s.config.model_params), fallback_price=s.config.fallback_price,
                             image_model=s.image_model, claw=s.claw)
    s.registered = True


