"""The claw's part of a patch attempt: container up → claw hooks → patch taken → container down.

Every hook failure is typed: the environment or engine failing is an infra error; a claw whose
last model call failed through the provider (429, 5xx, connection — read from the gateway ledger,
whatever the claw's exit code says) is an infra error too; anything else the claw did is graded.
``delete_agent`` and teardown run whatever happened."""

from __future__ import annotations

import contextvars
import json
import threading
from collections.abc import Callable
from typing import Any

from clawmark.attempts.outcome import PatchOutcome, infra_exceptions, provider_outcome, unreached_outcome
from clawmark.attempts.phases import PhaseClock, run_cleanup
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
        from clawmark.attempts.gateway_link import close, register

        try:
            with self.clock.phase("provision"):
                ctx = self.context()  # the gateway network lives in the engine too
                env = self._environment(ctx)
                ctx.sandbox = env.__enter__()
                self.image_id = ctx.sandbox.image_id
        except infra_exceptions() as exc:  # no image, leak (refused), engine: typed by name in the row
            return PatchOutcome.infra(exc, "provision"), None
        try:
            ctx.gateway_token = register(self.gateway, self.attempt_id, self.model, self.config, self.layout.ledger,
                                         calls_model=self.claw.calls_model)
            return self._drive_and_extract(ctx)
        finally:
            self._cleanup("delete_agent", lambda: self.claw.delete_agent(ctx))
            self._cleanup("teardown", lambda: env.__exit__(None, None, None))
            # The ledger is complete only once the attempt is closed and its running calls drained.
            self._cleanup("close", lambda: close(self.gateway, self.attempt_id, drain_s=self.config.stop_grace_s))

    def _cleanup(self, step: str, action: Any) -> None:
        run_cleanup(self.layout, step, action)

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
        ended = (provider_outcome(self.layout.ledger, EXECUTOR_ROLE, 1, self.turn.error_kind)
                 or unreached_outcome(self.layout.ledger, EXECUTOR_ROLE, self.turn, self.claw.calls_model))
        if ended is not None:
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
        result = run_with_deadline(lambda: self.claw.send_task(ctx, message, 0), self._deadline_s(),
                                   stop=claw_stopper(self.claw, ctx, self.gateway, self.attempt_id),
                                   grace_s=self.config.stop_grace_s)
        end_claw_processes(ctx.sandbox)  # what the claw left in the background ends before the patch is taken
        self.claw.backup_session(ctx, self.layout.transcript)
        return result

    def _deadline_s(self) -> float:
        return self.config.budgets.seconds + self.config.deadline_grace_s

    def _save_turn(self, ctx: ClawContext) -> None:
        assert self.turn is not None
        (self.layout.logs / "turn-0.json").write_text(self.turn.model_dump_json(indent=2))
        usage = self.claw.collect_usage(ctx)  # the claw's own figures: a cross-check of the ledger
        if usage is not None:
            # json.dumps keeps NaN (an unpriced cost) as NaN; pydantic's JSON would write null
            (self.layout.logs / "claw-usage.json").write_text(json.dumps(usage.model_dump(), indent=2))


class ClawDidNotStop(RuntimeError):
    """The claw's turn was still running after the deadline, its stop and the grace: nothing of
    the attempt can be trusted (a patch taken now could still change), so it is a harness error."""


def run_with_deadline(work: Callable[[], TurnResult], deadline_s: float, *,
                      stop: Callable[[], None] | None = None, grace_s: float = 30.0) -> TurnResult:
    """Run ``work()`` in a thread. Past the deadline, ``stop()`` ends the claw (its processes
    killed, its host-side loop asked to stop, its calls cut at the gateway) and the thread is
    joined: a timeout result comes back only once nothing of the claw runs any more. A thread
    still alive after ``grace_s`` raises ClawDidNotStop."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = work()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    # In a copy of this context: containers the claw starts carry the attempt's sweep/cell labels
    thread = threading.Thread(target=contextvars.copy_context().run, args=(target,), name="claw-turn", daemon=True)
    thread.start()
    thread.join(deadline_s)
    if thread.is_alive():
        if stop is not None:
            stop()
        thread.join(grace_s)
        if thread.is_alive():
            raise ClawDidNotStop(f"claw still running {grace_s:.0f} s after it was stopped at the "
                                 f"{deadline_s:.0f} s deadline")
        return TurnResult(success=False, timeout=True, finish_reason="timeout", exit_status="host_deadline",
                          duration_s=deadline_s, error=f"claw stopped at the {deadline_s:.0f} s host deadline")
    if "error" in box:
        raise box["error"]
    return box["result"]


def claw_stopper(claw: ClawAdapter, ctx: ClawContext, gateway: Any = None,
                 attempt_id: str | None = None) -> Callable[[], None]:
    """What ends a claw at its deadline, for every kind of claw: its own stop hook (host-side
    loops), a kill of every process in its container (claws and tools inside), and — when the
    attempt ends with the turn (`gateway` given) — closing the attempt at the gateway (a call
    still running is cut and ledgered as abandoned, new ones are refused). A multi-turn attempt
    whose judge still needs the gateway passes no gateway. Each step runs even if another fails."""
    from clawmark.attempts.gateway_link import close

    steps = [lambda: claw.stop(ctx), lambda: end_claw_processes(ctx.sandbox)]
    if gateway is not None and attempt_id is not None:
        steps.append(lambda: close(gateway, attempt_id, drain_s=0.0))

    def stop() -> None:
        for step in steps:
            try:
                step()
            except Exception:  # noqa: BLE001 - the join that follows tells whether the claw stopped
                continue

    return stop


# Every process of the container but init (PID 1), the container's own lifetime command (the
# first child of init: the lowest PID whose parent is 1) and this script; three passes catch what
# a dying process forks. Shell builtins only, so any image can run it.
_KILL_CLAW_PROCESSES = r"""
main=""
for d in /proc/[0-9]*; do
  p=${d#/proc/}; pp=""
  while read -r key value; do [ "$key" = "PPid:" ] && pp=$value && break; done < "$d/status" 2>/dev/null
  if [ "$p" != 1 ] && [ "$pp" = 1 ] && { [ -z "$main" ] || [ "$p" -lt "$main" ]; }; then main=$p; fi
done
for pass in 1 2 3; do
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    case "$p" in 1|"$main"|"$$") ;; *) kill -KILL "$p" 2>/dev/null ;; esac
  done
done
true
"""


def end_claw_processes(sandbox: Any) -> None:
    """SIGKILL the claw, its tools and whatever they started in the background, keeping the
    container itself alive for the patch. Only a real container: a test double's host is left alone."""
    from clawmark.runtime.sandbox import Sandbox

    if isinstance(sandbox, Sandbox):
        sandbox.exec(["sh", "-c", _KILL_CLAW_PROCESSES], timeout_s=30, user="0")
