"""The stages of an attempt, and the one loop that runs them over an attempt's state.

A track names its stages (`Stage`: a function over the attempt's state, what its failure means
for the row, whether running it again is fair, its outer deadline); each stage names the one that
comes next on the state (`next_stage`, clawmark/attempts/base.py), and the track's plan is the
table of its stages by that name (`plan_by_name`); `run_stages` drives them. How a stage is *called* is the caller's:
directly here (`clawmark run`, tests, benches), as one Prefect task per stage in `flows/attempt.py`
(retries, timeouts, the UI's view of where an attempt is). Both paths share everything else, so
the stop order, the typed outcomes and the clean-up are the same whichever runs them.

A stage signals the end of the attempt by raising: an infrastructure failure (typed: runtime,
engine, git, claw set-up, disk — `retryable` says which are worth another go) or `AttemptStopped`
(a model or provider failure the stage established; never retried). Anything else is our bug: a
harness_error row. Clean-up always runs, directly if the caller's call of it failed.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

import requests

from clawmark.attempts.base import AttemptState, Outcome
from clawmark.attempts.outcome import infra_exceptions
from clawmark.errors import Permanent
from clawmark.gateway.errors import ModelError
from clawmark.results import AttemptRow
from clawmark.results.errors import is_disk_full
from clawmark.swe.errors import ShellStepFailed
from clawmark.taskenv.errors import ServiceFailed

StateT = TypeVar("StateT", bound=AttemptState)
Caller = Callable[["Stage[StateT]", StateT], object]


class AttemptStopped(Permanent):
    """A stage found how the attempt ends (the provider refused the claw, a judge failed): the
    stage shows failed where stages are shown, and is not run again. `outcome` is the track's."""

    def __init__(self, message: str, outcome: Outcome) -> None:
        super().__init__(message)
        self.outcome = outcome


@dataclass(frozen=True)
class Stage(Generic[StateT]):
    name: str
    run: Callable[[StateT], object]
    failed: Callable[[StateT, BaseException], None]  # records the failure on the state (the row's outcome)
    retry_safe: bool = True  # False: a rerun would give the claw a second try (executor turns)
    bound_s: Callable[[StateT], float] = lambda state: DEFAULT_BOUND_S  # outer deadline of the whole stage
    per_turn: bool = False  # runs once per executor turn: its runs are named `name[turn]`

    def run_name(self, state: StateT) -> str:
        return f"{self.name}[{state.turn}]" if self.per_turn else self.name


# Outer bound of a stage without a budget of its own (provision may build an image first); the
# stage's own host-side deadlines (exec timeouts, the claw's deadline) end it long before.
DEFAULT_BOUND_S = 3600.0
# Outer-bound room for the claw hooks around a turn (post_container_start, create_agent, backup),
# teardown and record: what a stage may take beyond the budgets it enforces itself.
SETUP_MARGIN_S = 300.0


@dataclass(frozen=True)
class TrackStages(Generic[StateT]):
    plan: Callable[[StateT], Stage[StateT] | None]
    cleanup: Stage[StateT]
    record: Stage[StateT]  # its run returns the committed row


def plan_by_name(stages: Mapping[str, Stage[StateT]]) -> Callable[[StateT], Stage[StateT] | None]:
    """A track's plan: the stage the state names next, none once the outcome is known."""
    def plan(state: StateT) -> Stage[StateT] | None:
        if state.outcome is not None or state.next_stage is None:
            return None
        return stages[state.next_stage]

    return plan


def call_directly(stage: Stage[StateT], state: StateT) -> object:
    return stage.run(state)


def expected_failures() -> tuple[type[BaseException], ...]:
    return (*infra_exceptions(), ModelError, AttemptStopped)


def run_stages(state: StateT, track: TrackStages[StateT], call: Caller[StateT] = call_directly) -> AttemptRow:
    """Every stage the track's plan picks, then its clean-up (always), then its record (whose
    result, the committed row, is returned)."""
    plan, cleanup, record, last = track.plan, track.cleanup, track.record, None
    try:
        while (stage := plan(state)) is not None:
            if stage is last:
                raise RuntimeError(f"stage {stage.name} left the attempt where it was")
            last = stage
            try:
                call(stage, state)
            except expected_failures() as exc:
                stage.failed(state, exc)
    except Exception as exc:  # noqa: BLE001 - a bug of ours is a typed harness_error row, not a crash
        (state.layout.logs / "harness-error.txt").write_text(traceback.format_exc())
        state.harness_failed(exc)
    finally:
        if not state.cleaned_up:
            _clean_up(state, cleanup, call)
    return cast(AttemptRow, call(record, state))  # the record stage's run returns the committed row


def _clean_up(state: StateT, cleanup: Stage[StateT], call: Caller[StateT]) -> None:
    try:
        call(cleanup, state)
    except BaseException:  # noqa: BLE001 - the caller failed (its orchestrator, a timeout): clean up here
        cleanup.run(state)


def retryable(exc: BaseException) -> bool:
    """Whether running the failed stage again can help: a failure of the world under the attempt
    (engine, image, container, git step, claw set-up, disk). Never a timeout of any kind, a model
    or provider failure (the gateway already backs off on 429/5xx; auth and budget never heal), a
    refusal (history leak), what the workload caused (OOM, a patch or copy over its cap, the
    package's own pre_exec script), nor an exception we do not know (our bug). The failure's type
says which: `clawmark.errors.Permanent` marks what is never run again."""
    if isinstance(exc, (TimeoutError, requests.exceptions.Timeout, Permanent)):
        return False
    if is_disk_full(exc):  # nothing frees the disk in the seconds a retry waits; the sweep stops on it
        return False
    if isinstance(exc, ShellStepFailed) and exc.timed_out:
        return False
    if isinstance(exc, ServiceFailed) and "ran past" in exc.reason:  # a oneshot service's timeout
        return False
    return isinstance(exc, infra_exceptions())
