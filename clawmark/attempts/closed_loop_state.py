"""What one closed-loop attempt holds while its stages run (clawmark/attempts/closed_loop_stages.py
for the environment, closed_loop_cycle.py for the turns, closed_loop_finish.py for the end): the shared attempt state, the task and
its role models, the task environment, the live-environment steps already run, the gateway tokens
of every role, and the cycles judged so far."""

from __future__ import annotations

from collections.abc import Callable

from clawmark.attempts.base import AttemptState
from clawmark.attempts.closed_loop_config import ClosedLoopAttemptConfig
from clawmark.results.outcome import ClosedLoopOutcome
from clawmark.attempts.closed_loop_prompt import first_message
from clawmark.attempts.closed_loop_record import CycleRecord
from clawmark.attempts.seams import AttemptGateway, AttemptStore
from clawmark.catalog.task import ClosedLoopTask
from clawmark.claws import ClawAdapter
from clawmark.judge.evidence import Evidence
from clawmark.judge.fence import Fence
from clawmark.results import AttemptLayout
from clawmark.taskenv import TaskEnv
from clawmark.taskenv.headed import HeadedRun
from clawmark.taskenv.package_guard import PackageChanged
from clawmark.webproxy import ProxiedTaskEnv


class ClosedLoopAttempt(AttemptState[ClosedLoopAttemptConfig, ClosedLoopOutcome]):
    """One closed-loop attempt's state; each stage names the next (`next_stage`)."""

    outcome_type = ClosedLoopOutcome

    def __init__(self, task: ClosedLoopTask, claw: ClawAdapter, models: dict[str, str], attempt_id: str,
                 layout: AttemptLayout, gateway: AttemptGateway | None, config: ClosedLoopAttemptConfig, *,
                 store: AttemptStore, fields: dict[str, object], saved_hash: str, model: str,
                 price_fallback: bool = False) -> None:
        super().__init__(claw, model, attempt_id, layout, gateway, config, store=store, fields=fields,
                         saved_hash=saved_hash, price_fallback=price_fallback, first_stage="provision")
        self.task, self.models = task, models
        self.image_model = config.image_model or task.spec.image_model
        self.headed = HeadedRun(task, layout.artifacts)  # nothing unless the task is headed
        self.env: TaskEnv | ProxiedTaskEnv | None = None
        self.role_tokens: dict[str, str] = {}  # the judges' stay here: only the executor's enters the container
        self.container_up = self.registered = self.agent_created = False
        self.live_done: set[str] = set()  # keys of live-environment steps already run
        self.package_changed: PackageChanged | None = None
        spec = task.spec
        self.followups = spec.codex.max_user_followups
        self.turn_limit = float(config.turn_timeout_s or spec.timeout_seconds)
        self.total_limit = float(config.total_timeout_s or spec.max_total_seconds)
        self.executor_s = 0.0  # executor turns only: judges and set-up do not count
        self.records: list[CycleRecord] = []
        self.current: CycleRecord | None = None  # the record of the turn being judged
        self.evidence: Evidence | None = None
        self.fence: Fence | None = None  # drawn on first use (closed_loop_judging.attempt_fence)
        self.message = first_message(task, claw, config)  # runtime facts, the claw's note, the task

    @property
    def turn(self) -> int:
        """1-based number of the cycle under way (or next)."""
        return len(self.records) + 1

    @property
    def max_turns(self) -> int:
        return 1 + self.followups

    @property
    def threshold(self) -> float:
        return float(self.task.spec.success_threshold)

    def start_container(self) -> None:
        self.ctx.sandbox = self.env.start()
        self.container_up, self.image_id = True, self.env.image_id

    def stop_container(self) -> None:
        self.container_up = False
        self.env.stop()  # the package copy stays: a retried inject starts a fresh container from it

    def live_step(self, key: str, action: Callable[[], object]) -> None:
        """Run a live-environment step once per attempt for these inputs (`key`)."""
        if key not in self.live_done:
            action()
            self.live_done.add(key)
