"""The environment side of a closed-loop attempt: task container up → gateway routes → claw
agent → cycles → agent deleted, container down, routes gone (always, whatever happened).

Set-up failures are typed: a pre_exec script failing is `pre_exec_failed`; a service that exits
non-zero or never becomes ready, the engine or the image failing is `infra_error` (the service
log is in logs/ — TaskEnv saves it); anything else raised is our bug (harness_error)."""

from __future__ import annotations

import json
from typing import Any

from clawmark.attempts.closed_loop_outcome import LoopOutcome
from clawmark.attempts.outcome import infra_exceptions
from clawmark.attempts.phases import PhaseClock, run_cleanup
from clawmark.claws import ClawAdapter, ClawContext
from clawmark.results import AttemptLayout, Status

EXECUTOR_ROLE = "executor"
VISION_SUFFIX = "-vision"  # a sibling route pinned to the image model, on the same ledger


class ClosedLoopSession:
    def __init__(self, task: Any, claw: ClawAdapter, models: dict[str, str], attempt_id: str,
                 layout: AttemptLayout, gateway: Any, config: Any, clock: PhaseClock):
        from clawmark.taskenv.headed import HeadedRun

        self.task, self.claw, self.models, self.attempt_id = task, claw, models, attempt_id
        self.layout, self.gateway, self.config, self.clock = layout, gateway, config, clock
        self.image_model = config.image_model or task.spec.image_model
        self.headed = HeadedRun(task, layout.artifacts)  # nothing unless the task is headed
        self.token = ""

    def run(self) -> LoopOutcome:
        from clawmark.taskenv.errors import PreExecFailed

        ctx = self.context()
        env = self._environment(ctx)
        try:
            with self.clock.phase("provision"):
                ctx.sandbox = env.__enter__()
                self.headed.begin(ctx.sandbox)
        except PreExecFailed as exc:
            self._cleanup("teardown", lambda: env.__exit__(None, None, None))
            return LoopOutcome.infra(exc, "pre_exec", Status.PRE_EXEC_FAILED, threshold=self._threshold())
        except infra_exceptions() as exc:  # ServiceFailed, no image, engine: typed by name in the row
            self._cleanup("teardown", lambda: env.__exit__(None, None, None))
            return LoopOutcome.infra(exc, "provision", threshold=self._threshold())
        self._register()
        ctx.gateway_token = self.token
        try:
            return self._loop(ctx, env).model_copy(update={"image_id": ctx.sandbox.image_id})
        finally:
            self._cleanup("delete_agent", lambda: self.claw.delete_agent(ctx))
            self._cleanup("headed", lambda: self.headed.finish(ctx.sandbox))
            self._cleanup("teardown", lambda: env.__exit__(None, None, None))
            self._unregister()

    def _threshold(self) -> float:
        return float(self.task.spec.success_threshold)

    def _loop(self, ctx: ClawContext, env: Any) -> LoopOutcome:
        from clawmark.attempts.closed_loop_cycle import CycleRunner

        try:
            self.claw.post_container_start(ctx)
            self.claw.create_agent(ctx)
        except infra_exceptions() as exc:
            return LoopOutcome.infra(exc, "claw", threshold=self._threshold())
        outcome = CycleRunner(self, ctx, env).run()
        self._cleanup("collect_usage", lambda: self._save_claw_usage(ctx))
        return outcome

    def _save_claw_usage(self, ctx: ClawContext) -> None:
        """The claw's own figures, a cross-check of the ledger (attempts/usage_check.py)."""
        from clawmark.attempts.usage_check import CLAW_USAGE_FILE

        usage = self.claw.collect_usage(ctx)
        if usage is not None:
            # json.dumps keeps NaN (an unpriced cost) as NaN; pydantic's JSON would write null
            (self.layout.logs / CLAW_USAGE_FILE).write_text(json.dumps(usage.model_dump(), indent=2))

    def context(self) -> ClawContext:
        from clawmark.attempts.gateway_link import container_url, host_url
        from clawmark.taskenv.layout import SKILLS_DIR, WORKSPACE

        host = host_url(self.gateway, self.attempt_id, EXECUTOR_ROLE)
        inside = self.claw.runs_in_container
        vision = host_url(self.gateway, self.attempt_id + VISION_SUFFIX, EXECUTOR_ROLE) if self.image_model else ""
        return ClawContext(
            attempt_id=self.attempt_id,
            gateway_url=container_url(self.gateway, self.attempt_id, EXECUTOR_ROLE) if inside else host,
            host_gateway_url=host, ledger_path=self.layout.ledger, model=self.models[EXECUTOR_ROLE],
            budgets=self.config.budgets, workspace=WORKSPACE, host_dir=self.layout.transcript,
            track="closed_loop", exec_user=self.env_config().executor_user, skills_dir=SKILLS_DIR,
            image_model=self.image_model, image_gateway_url=vision,
        )

    def env_config(self) -> Any:
        from clawmark.taskenv.config import TaskEnvConfig
        from clawmark.taskenv.headed import task_image

        labels = {"clawmark.attempt": self.attempt_id, "clawmark.claw": self.claw.name}
        return TaskEnvConfig(image=task_image(self.task, self.config.image), network_policy=self.config.network_policy, snapshot=self.config.snapshot,
                             base_skills=self.config.base_skills, service_timeout_s=self.config.service_timeout_s,
                             service_ready_s=self.config.service_ready_s, labels=labels)

    def _environment(self, ctx: ClawContext) -> Any:
        from clawmark.taskenv import TaskEnv

        config = self.env_config()
        extra = {k: v for k, v in self.claw.docker_args(ctx).items() if k in ("env", "volumes")}
        if extra:  # a claw running in the container brings its home and environment
            config = config.model_copy(update={k: {**getattr(config, k), **v} for k, v in extra.items()})
        if self.config.web is not None:  # the web proxy in front of the container (clawmark/webproxy)
            from clawmark.webproxy import ProxiedTaskEnv

            return ProxiedTaskEnv(self.task, config, self.layout.logs, self.config.web, self.layout.artifacts / "web")
        return TaskEnv(self.task, config, self.layout.logs)

    def _register(self) -> None:
        budget = self.config.budgets.cost_usd + self.config.judge_budget_usd
        params = dict(self.config.model_params)
        route = self.gateway.register_attempt(self.attempt_id, model=self.models[EXECUTOR_ROLE], budget_usd=budget,
                                              ledger_path=self.layout.ledger, role_models=dict(self.models),
                                              params=params, require_token=True)
        self.token = route.token  # every role and the claw carry it; a call without it is refused
        if self.image_model:
            self.gateway.register_attempt(self.attempt_id + VISION_SUFFIX, model=self.image_model,
                                          budget_usd=self.config.budgets.cost_usd, ledger_path=self.layout.ledger,
                                          require_token=True, token=self.token)

    def _unregister(self) -> None:
        self.gateway.unregister_attempt(self.attempt_id)
        if self.image_model:
            self.gateway.unregister_attempt(self.attempt_id + VISION_SUFFIX)

    def _cleanup(self, step: str, action: Any) -> None:
        run_cleanup(self.layout, step, action)
