"""The claw's part of a patch attempt: container up → claw hooks → patch taken → container down.

Every hook failure is typed: the environment or engine failing is an infra error; a claw whose
last model call failed through the provider (429, 5xx, connection — read from the gateway ledger,
whatever the claw's exit code says) is an infra error too; anything else the claw did is graded.
``delete_agent`` and teardown run whatever happened."""

from __future__ import annotations

import threading
from typing import Any

from clawmark.attempts.outcome import PatchOutcome, infra_exceptions, provider_outcome
from clawmark.attempts.phases import PhaseClock
from clawmark.claws import ClawAdapter, ClawContext, TurnResult
from clawmark.results import AttemptLayout

EXECUTOR_ROLE = "executor"


class ClawSession:
    def __init__(self, instance: Any, claw: ClawAdapter, model: str, attempt_id: str,
                 layout: AttemptLayout, gateway: Any, config: Any, clock: PhaseClock):
        self.instance, self.claw, self.model, self.attempt_id = instance, claw, model, attempt_id
        self.layout, self.gateway, self.config, self.clock = layout, gateway, config, clock
        self.turn: TurnResult | None = None
        self.image_id: str | None = None

    def context(self) -> ClawContext:
        from clawmark.attempts.gateway_link import container_url, host_url

        host = host_url(self.gateway, self.attempt_id, EXECUTOR_ROLE)
        inside = self.claw.runs_in_container
        return ClawContext(
            attempt_id=self.attempt_id,
            gateway_url=container_url(self.gateway, self.attempt_id, EXECUTOR_ROLE) if inside else host,
            host_gateway_url=host,
            ledger_path=self.layout.ledger,
            model=self.model,
            budgets=self.config.budgets,
            host_dir=self.layout.transcript,
            gold_patch=self.instance.patch if self.claw.needs_gold_patch else None,
        )

    def run(self) -> tuple[PatchOutcome | None, Any]:
        """(outcome, None) when the attempt ended early; (None, ExtractedPatch) to grade."""
        from clawmark.attempts.gateway_link import register, unregister

        try:
            with self.clock.phase("provision"):
                ctx = self.context()  # the gateway network lives in the engine too
                env = self._environment(ctx)
                ctx.sandbox = env.__enter__()
                self.image_id = ctx.sandbox.image_id
        except infra_exceptions() as exc:  # no image, leak (refused), engine: typed by name in the row
            return PatchOutcome.infra(exc, "provision"), None
        register(self.gateway, self.attempt_id, self.model, self.config, self.layout.ledger)
        try:
            return self._drive_and_extract(ctx)
        finally:
            self._cleanup("delete_agent", lambda: self.claw.delete_agent(ctx))
            self._cleanup("teardown", lambda: env.__exit__(None, None, None))
            unregister(self.gateway, self.attempt_id)

    def _cleanup(self, step: str, action: Any) -> None:
        """Clean-up always runs and never hides the attempt's outcome; failures are logged."""
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - the janitor reaps what a failed teardown leaves
            with (self.layout.logs / "cleanup-errors.txt").open("a") as log:
                log.write(f"{step}: {type(exc).__name__}: {exc}\n")

    def _environment(self, ctx: ClawContext) -> Any:
        from clawmark.swe.environment import InstanceEnv, InstanceEnvConfig

        labels = {"clawmark.attempt": self.attempt_id, "clawmark.claw": self.claw.name}
        return InstanceEnv(self.instance, InstanceEnvConfig(**self.claw.docker_args(ctx), labels=labels))

    def _drive_and_extract(self, ctx: ClawContext) -> tuple[PatchOutcome | None, Any]:
        from clawmark.swe.patch import extract_patch

        try:
            with self.clock.phase("executor"):
                self.turn = self._drive(ctx)
        except infra_exceptions() as exc:  # ClawError, ContainerGone, engine trouble
            return PatchOutcome.infra(exc, "claw"), None
        self._save_turn(ctx)
        if (ended := provider_outcome(self.layout.ledger, EXECUTOR_ROLE, 1, self.turn.error_kind)) is not None:
            return ended, None
        try:
            with self.clock.phase("extract"):
                patch = extract_patch(ctx.sandbox, self.instance.base_commit)
        except infra_exceptions() as exc:  # SweRunError kinds: git steps, patch too large
            return PatchOutcome.infra(exc, "extract"), None
        self.layout.patch.write_text(patch.clean)
        self.layout.raw_patch.write_text(patch.raw)
        return None, patch

    def _drive(self, ctx: ClawContext) -> TurnResult:
        self.claw.post_container_start(ctx)
        self.claw.create_agent(ctx)
        message = self.claw.render_prompt(problem_statement=self.instance.problem_statement,
                                          base_commit=self.instance.base_commit, workspace=ctx.workspace)
        (self.layout.transcript / "prompt.txt").write_text(message)
        result = run_with_deadline(lambda: self.claw.send_task(ctx, message, 0), self._deadline_s())
        self.claw.backup_session(ctx, self.layout.transcript)
        return result

    def _deadline_s(self) -> float:
        return self.config.budgets.seconds + self.config.deadline_grace_s

    def _save_turn(self, ctx: ClawContext) -> None:
        assert self.turn is not None
        (self.layout.logs / "turn-0.json").write_text(self.turn.model_dump_json(indent=2))
        usage = self.claw.collect_usage(ctx)  # the claw's own figures: a cross-check of the ledger
        if usage is not None:
            (self.layout.logs / "claw-usage.json").write_text(usage.model_dump_json(indent=2))


def run_with_deadline(work: Any, deadline_s: float) -> TurnResult:
    """Run ``work()`` in a daemon thread; past the deadline return a timeout result and leave it
    to die with its container (the caller tears the container down)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = work()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="claw-turn", daemon=True)
    thread.start()
    thread.join(deadline_s)
    if thread.is_alive():
        return TurnResult(success=False, timeout=True, finish_reason="timeout", exit_status="host_deadline",
                          duration_s=deadline_s, error=f"claw still running after the {deadline_s:.0f} s deadline")
    if "error" in box:
        raise box["error"]
    return box["result"]
