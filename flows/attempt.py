"""One attempt of either track as Prefect tasks, one per stage, so the UI shows where an attempt
is and where it failed: patch — provision, executor-turn, extract-patch, teardown, evaluate,
record; closed loop — provision, inject, then executor-turn[n], supervise[n], follow-up[n] per
turn, teardown, record.

The core (clawmark/attempts/stages.py) decides which stage runs next, what a failure means for
the row and that clean-up always runs; this module only says how a stage is called: as a task
with retries for infrastructure failures (`clawmark.attempts.stages.retryable`: never timeouts,
authentication, budget or model failures) with exponential backoff, none for a stage whose rerun
would give the claw a second try (executor turns), and an outer `timeout_seconds` from the
stage's own budget (its host-side deadlines stay inside the core and end it first). A retried
supervise or follow-up replays the model answers its failed run already paid for
(`clawmark.gateway.replay`): the provider is neither called nor billed again.

Retries: CLAWMARK_STAGE_RETRIES (default 2) and CLAWMARK_STAGE_BACKOFF_S (default 10: waits of
10 s, 20 s, ...), read when the attempt starts.
"""

from __future__ import annotations

import logging
from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.tasks import exponential_backoff
from prefect.utilities.annotations import quote

from clawmark.attempts.closed_loop import open_closed_loop_attempt
from clawmark.attempts.closed_loop_stages import CLOSED_LOOP_STAGES
from clawmark.attempts.patch import open_patch_attempt
from clawmark.attempts.patch_stages import PATCH_STAGES
from clawmark.attempts.stages import Stage, retryable, run_stages
from clawmark.results import AttemptRow, ResultStore
from clawmark.settings import settings
from clawmark.sweeps import Cell, SweepPlan
from clawmark.sweeps.cell_preflight import refuse_unrunnable


class _ThreadTimeoutNotice(logging.Filter):
    """Prefect warns on every run of a task with a timeout in a worker thread (each cell runs in
    one) that the timeout cannot interrupt a blocking call. Known and handled: the core's own
    deadlines end docker, subprocess and model calls; the task's bound is only the outer one."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "running in a worker thread" not in str(record.msg)


logging.getLogger("prefect.task_runs").addFilter(_ThreadTimeoutNotice())


def retry_infra_only(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect's retry_condition_fn: retry only a typed infrastructure failure."""
    failure = state.result(raise_on_failure=False)
    return isinstance(failure, BaseException) and retryable(failure)


# persist_result=False and NO_CACHE: the attempt's state lives in this process only; what proves
# a cell done is its committed row, never a task result.
@task(name="stage", cache_policy=NO_CACHE, persist_result=False, retry_condition_fn=retry_infra_only)
def run_stage(stage: Stage, state: Any) -> Any:
    return stage.run(state)


def as_task(stage: Stage, state: Any) -> Any:
    """Call one stage as its own task run (named after the stage, and the turn for turn stages)."""
    conf = settings()
    retries = conf.stage_retries if stage.retry_safe else 0
    backoff = conf.stage_backoff_s
    options = run_stage.with_options(
        name=stage.name, task_run_name=stage.run_name(state), retries=retries,
        retry_delay_seconds=exponential_backoff(backoff_factor=backoff)(retries) if retries else 0,
        timeout_seconds=stage.bound_s(state))
    return options(quote(stage), quote(state))


def run_attempt(plan: SweepPlan, cell: Cell, store: ResultStore, gateway: Any) -> AttemptRow:
    """Open the cell's attempt and run its track's stages as tasks; the committed row."""
    spec = plan.spec
    if cell.track == "closed_loop":
        state = open_closed_loop_attempt(plan.tasks[cell.instance_id], cell.claw, cell.model, cell.seed, store,
                                         spec.sweep_id, gateway, config=spec.closed_loop.attempt)
        refuse_unrunnable(state)  # missing content: a task_unrunnable row, nothing provisioned
        return run_stages(state, CLOSED_LOOP_STAGES, call=as_task)
    state = open_patch_attempt(plan.instances[cell.instance_id], cell.claw, cell.model, cell.seed, store,
                               spec.sweep_id, gateway, config=spec.attempt)
    return run_stages(state, PATCH_STAGES, call=as_task)
