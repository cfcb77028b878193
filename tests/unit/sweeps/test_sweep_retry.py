"""A rerun finishes the job (issue 16 item 2), planned from the store alone: error rows are
retried up to a bound counted in the store's history, measured failures never; the row a retry
replaces stays readable as history; what is left after a run comes with the command that
finishes it."""

from __future__ import annotations

import pytest

from clawmark.attempts.patch import identity_fields
from clawmark.catalog import load_instances
from clawmark.claws import get_claw
from clawmark.cli.sweep_view import left_lines
from clawmark.results import AttemptRow, ResultStore
from clawmark.results.history import history_folder, keep_replaced, read_history, replaced_errors
from clawmark.settings import TASKS_CATALOG
from clawmark.sweeps import SweepSpec, plan_sweep
from clawmark.sweeps.plan import failed_cells
from clawmark.sweeps.retry import what_is_left

INI = "clawmark-fixtures__iniparse-py-1"
ERRORS = {("oracle", 0): "infra_error", ("oracle", 1): "rate_limit", ("oracle", 2): "harness_error"}
MEASURED = {("nop", 0): "empty_patch", ("nop", 1): "unresolved", ("nop", 2): "apply_failed"}


@pytest.fixture(scope="module")
def spec() -> SweepSpec:
    return SweepSpec(sweep_id="retry", instances=TASKS_CATALOG / "swe" / "instances.jsonl", tasks=[INI],
                     claws=["oracle", "nop"], models=["scripted/demo"], seeds=[0, 1, 2])


@pytest.fixture
def store(tmp_path, spec) -> ResultStore:
    """Every cell committed: three error rows (oracle), three measured failures (nop)."""
    store = ResultStore(tmp_path / "results")
    instance = next(i for i in load_instances(spec.instances) if i.instance_id == INI)
    for (claw, seed), status in {**ERRORS, **MEASURED}.items():
        fields = identity_fields(instance, get_claw(claw), "scripted/demo", seed, spec.sweep_id, spec.attempt)
        store.write(AttemptRow(status=status, error_message=f"{status} of seed {seed}", **fields))
    return store


def _keys(store: ResultStore, claw: str) -> set[str]:
    frame = store.read("retry")
    return set(frame.loc[frame["claw"] == claw, "cell_key"])


def test_a_rerun_retries_every_error_row_and_no_measured_failure(spec, store):
    plan = plan_sweep(spec, store, retry_errors=3)
    assert plan.retry == _keys(store, "oracle") == {c.cell_key for c in plan.pending}
    assert plan.done == _keys(store, "nop") and not plan.spent
    assert not plan_sweep(spec, store, retry_errors=0).pending  # 0 keeps error rows, as before
    assert {c.cell_key for c in failed_cells(plan, store)} == plan.retry  # rerun-failed picks the same cells


def test_the_replaced_row_stays_readable_and_counts_against_the_bound(spec, store, tmp_path):
    plan = plan_sweep(spec, store, retry_errors=1)
    key = sorted(plan.retry)[0]
    old = store.read_row("retry", key)
    logs = store.layout("retry", key).ensure().logs
    (logs / "stages.log").write_text("Traceback (most recent call last): the engine went away\n")
    assert keep_replaced(store, "retry", key) == keep_replaced(store, "retry", key)  # kept once, by attempt id
    assert not store.layout("retry", key).dir.exists()  # the new attempt opens an empty folder
    kept = history_folder(store, "retry", key, old.attempt_id) / "logs" / "stages.log"
    assert "engine went away" in kept.read_text()
    store.write(old.model_copy(update={"attempt_id": "second-try"}))  # the retry failed again
    history = read_history(store, "retry")
    assert list(history["attempt_id"]) == [old.attempt_id] and history["status"][0] == old.status
    assert replaced_errors(store, "retry") == {key: 1}

    again = plan_sweep(spec, store, retry_errors=1)
    assert key in again.spent and key in again.done and again.retry == plan.retry - {key}
    assert key in plan_sweep(spec, store, retry_errors=2).retry  # a higher bound tries it again


def test_what_is_left_says_the_command_that_finishes_it(spec, store):
    plan = plan_sweep(spec, store, retry_errors=1)
    key = sorted(plan.retry)[0]
    keep_replaced(store, "retry", key)
    store.write(store.read_row("retry", key).model_copy(update={"attempt_id": "second-try"}))
    planned = {c.cell_key for c in plan.cells} | {"never-ran"}
    left = what_is_left(store, "retry", planned, limit=1)
    assert (left.missing, sum(left.retryable.values()), sum(left.spent.values())) == (1, 2, 1)
    lines = left_lines(left, "clawmark sweep s.yaml", "clawmark sweep rerun-failed retry --spec s.yaml", 1)
    assert lines[0] == "left: 1 cells without a row — to run them: clawmark sweep s.yaml"
    assert lines[1].endswith("— the next run retries them: clawmark sweep s.yaml")
    assert lines[2].endswith("after 1 retries — to try again: clawmark sweep rerun-failed retry --spec s.yaml")
    done = what_is_left(store, "retry", _keys(store, "nop"), limit=1)
    assert done.nothing and left_lines(done, "a", "b", 1) == ["left: nothing — every planned cell has a measured row"]
