"""Which stage failures Prefect retries, through the real task wrapper (flows/attempt.py) and a real
Prefect run: typed infrastructure failures are retried with backoff; timeouts (the stage's own
outer bound, a command's deadline), authentication, budget and model failures, what the workload
caused and our own bugs are not; nor is any failure of a stage a rerun would be unfair for."""

from __future__ import annotations

import time

import pytest

from clawmark.attempts.stages import Stage
from clawmark.gateway.errors import AuthError, BudgetExceeded, RateLimited
from clawmark.runtime.errors import ContainerGone, EngineUnavailable, ExecTimeout, ImageMissing, OutOfMemory
from clawmark.swe.errors import HistoryLeak, ShellStepFailed


class _Attempt:
    turn = 1

    def __init__(self) -> None:
        self.tries = 0


def _run(stage: Stage, state: _Attempt) -> BaseException | None:
    from prefect import flow

    from flows.attempt import as_task

    @flow(name="stage-retry-probe")
    def probe() -> BaseException | None:
        try:
            as_task(stage, state)
        except Exception as exc:  # noqa: BLE001 - the failure as the attempt's loop would see it
            return exc
        return None

    return probe()


def _raising(failure: BaseException):
    def run(state: _Attempt) -> None:
        state.tries += 1
        raise failure

    return run


@pytest.mark.parametrize(("failure", "tries"), [
    (ImageMissing("clawmark/x:1 is not present"), 3),
    (EngineUnavailable("no engine answers"), 3),
    (ContainerGone("removed by the engine"), 3),
    (ShellStepFailed("git add -A", 128, "index.lock exists"), 3),
    (AuthError("401 invalid key", status_code=401), 1),
    (BudgetExceeded("attempt cap reached"), 1),
    (RateLimited("429", status_code=429), 1),  # the gateway has already backed off
    (ExecTimeout("pytest", 5.0), 1),
    (ShellStepFailed("git diff", None, "", timed_out=True), 1),
    (OutOfMemory("OOM-killed"), 1),
    (HistoryLeak("abc123", ["refs/tags/v2"]), 1),
    (ValueError("a bug of ours"), 1),
])
def test_only_infrastructure_failures_are_retried(prefect_harness, monkeypatch, failure, tries):
    monkeypatch.setenv("CLAWMARK_STAGE_BACKOFF_S", "0.05")
    state = _Attempt()
    raised = _run(Stage("probe", _raising(failure), lambda s, e: None), state)
    assert raised is failure and state.tries == tries


def test_a_stage_unfair_to_rerun_is_never_retried(prefect_harness, monkeypatch):
    monkeypatch.setenv("CLAWMARK_STAGE_BACKOFF_S", "0.05")
    state, failure = _Attempt(), ImageMissing("gone mid-turn")
    raised = _run(Stage("executor-turn", _raising(failure), lambda s, e: None, retry_safe=False), state)
    assert raised is failure and state.tries == 1


def test_the_outer_bound_of_a_stage_is_a_timeout_and_not_retried(prefect_harness, monkeypatch):
    monkeypatch.setenv("CLAWMARK_STAGE_BACKOFF_S", "0.05")

    def hang(state: _Attempt) -> None:
        state.tries += 1
        for _ in range(100):  # short sleeps: Prefect's timeout interrupts between them
            time.sleep(0.1)

    state = _Attempt()
    raised = _run(Stage("probe", hang, lambda s, e: None, bound_s=lambda s: 1.0), state)
    assert isinstance(raised, TimeoutError) and state.tries == 1
