"""The one scheduling policy of local and pool sweeps (clawmark/sweeps/scheduler.py): slots, the
cost cap, stops, resubmission, forced replacement and the retry of error rows. The double is
only the work scheduled: a fake `submit` whose runs commit real rows into a real store."""

from __future__ import annotations

import logging
import math

import pytest

from clawmark.attempts.patch import identity_fields
from clawmark.catalog import load_instances
from clawmark.claws import get_claw
from clawmark.results import AttemptRow, ResultStore
from clawmark.results.errors import ResultsDiskFull
from clawmark.results.history import keep_replaced
from clawmark.runtime.engine import EngineStayedDown
from clawmark.settings import TASKS_CATALOG
from clawmark.sweeps import Cell, SweepSpec, plan_sweep
from clawmark.sweeps.retry import what_is_left
from clawmark.sweeps.scheduler import (DISK_FULL, ENGINE_DOWN, Committed, NoRow, Stop, SweepStopping, new_row,
                                       replaced_rows, schedule)

INSTANCES = TASKS_CATALOG / "swe" / "instances.jsonl"
LOG = logging.getLogger("test-scheduler")


def _spec(**overrides) -> SweepSpec:
    ids = [i.instance_id for i in load_instances(INSTANCES)][:2]
    fields = {"sweep_id": "sched", "instances": INSTANCES, "tasks": ids, "claws": ["oracle", "nop"],
              "models": ["scripted/demo"], "seeds": [0, 1], "max_parallel": 2}
    return SweepSpec(**{**fields, **overrides})


def _commit(store: ResultStore, spec: SweepSpec, cell: Cell, status: str, cost: float, attempt_id: str) -> AttemptRow:
    instance = next(i for i in load_instances(INSTANCES) if i.instance_id == cell.instance_id)
    fields = identity_fields(instance, get_claw(cell.claw), cell.model, cell.seed, spec.sweep_id, spec.attempt)
    usage = {} if math.isnan(cost) else {"executor": {"input_tokens": 10, "output_tokens": 5, "cost_usd": cost, "calls": 1}}
    row = AttemptRow.from_usage(usage, status=status, **{**fields, "attempt_id": attempt_id})
    store.write(row)
    return row


class FakeRun:
    """A run that ends after `polls` looks with its `outcome`; a committed one writes its row then."""

    def __init__(self, work: "FakeWork", cell: Cell, outcome) -> None:
        self.work, self.cell, self.outcome, self.polls = work, cell, outcome, work.polls

    def ended(self):
        self.polls -= 1
        if self.polls > 0:
            return None
        self.work.flying.discard(self.cell.cell_key)
        if isinstance(self.outcome, Committed) and self.work.store is not None:
            keep_replaced(self.work.store, self.work.spec.sweep_id, self.cell.cell_key)
            self.work.row(self.cell, self.work.status, self.outcome.cost_usd)
        return self.outcome


class FakeWork:
    """`submit` of the scheduler: records what was submitted and how many ran at once."""

    def __init__(self, spec: SweepSpec, store: ResultStore | None = None, outcomes=None, polls: int = 2,
                 status: str = "resolved", stop_at: int | None = None) -> None:
        self.spec, self.store, self.polls, self.status, self.stop_at = spec, store, polls, status, stop_at
        self.outcomes = outcomes or {}  # cell key -> outcomes of its successive runs
        self.submitted: list[str] = []
        self.flying: set[str] = set()
        self.most_at_once = 0

    def submit(self, cell: Cell) -> FakeRun:
        if self.stop_at is not None and len(self.submitted) == self.stop_at:
            raise SweepStopping(ENGINE_DOWN, "the Docker engine stayed down")
        self.submitted.append(cell.cell_key)
        self.flying.add(cell.cell_key)
        self.most_at_once = max(self.most_at_once, len(self.flying))
        script = self.outcomes.get(cell.cell_key, [])
        return FakeRun(self, cell, script.pop(0) if script else Committed(0.1))

    def row(self, cell: Cell, status: str, cost: float) -> AttemptRow:
        return _commit(self.store, self.spec, cell, status, cost, f"run-{len(self.submitted)}-{cell.cell_key[:8]}")


def _run(spec, store, cells, work, **policy):
    return schedule(spec, store, cells, work.submit, LOG, poll_s=0, **policy)


def test_every_cell_runs_in_order_never_more_than_max_parallel_at_once(tmp_path):
    spec, store = _spec(), ResultStore(tmp_path)
    cells = plan_sweep(spec, store).pending
    work = FakeWork(spec, store)
    done = _run(spec, store, cells, work)
    assert work.submitted == [c.cell_key for c in cells]
    assert work.most_at_once == spec.max_parallel == 2
    assert (done.ran, done.resubmitted, done.given_up, done.stopped, done.not_run) == (8, 0, 0, None, 0)
    assert store.completed_cells(spec.sweep_id) == {c.cell_key for c in cells}
    done.raise_if_stopped(store.root)  # nothing stopped it: no raise


def test_the_cost_cap_counts_committed_rows_then_each_new_row_and_ignores_unpriced(tmp_path):
    spec, store = _spec(max_cost_usd=1.0, max_parallel=1), ResultStore(tmp_path)
    cells = plan_sweep(spec, store).pending
    _commit(store, spec, cells[0], "resolved", 0.3, "before")  # spent by an earlier run of the sweep
    rest = cells[1:]
    work = FakeWork(spec, store, outcomes={rest[0].cell_key: [Committed(math.nan)],
                                           rest[1].cell_key: [Committed(0.4)], rest[2].cell_key: [Committed(0.3)]})
    done = _run(spec, store, rest, work)
    assert work.submitted == [c.cell_key for c in rest[:3]]  # 0.3 + nan + 0.4 + 0.3 reaches 1.0: no fourth
    assert (done.ran, done.not_run, done.stopped) == (3, len(rest) - 3, None)


def test_a_run_ending_on_a_full_disk_stops_the_sweep_and_the_runs_in_flight_end(tmp_path):
    spec, store = _spec(), ResultStore(tmp_path)
    cells = plan_sweep(spec, store).pending
    work = FakeWork(spec, store, outcomes={cells[0].cell_key: [Stop(DISK_FULL, "no space left")]})
    done = _run(spec, store, cells, work)
    assert work.submitted == [cells[0].cell_key, cells[1].cell_key]  # the second was in flight: it ended
    assert (done.ran, done.stopped, done.not_run) == (1, DISK_FULL, 7)
    with pytest.raises(ResultsDiskFull, match="stopped with 7 cell"):
        done.raise_if_stopped(store.root)


def test_a_submit_that_cannot_start_a_cell_stops_the_sweep_as_the_engine_down(tmp_path):
    spec, store = _spec(), ResultStore(tmp_path)
    cells = plan_sweep(spec, store).pending
    work = FakeWork(spec, store, stop_at=3)
    done = _run(spec, store, cells, work)
    assert work.submitted == [c.cell_key for c in cells[:3]]
    assert (done.ran, done.stopped, done.not_run) == (3, ENGINE_DOWN, 5)
    with pytest.raises(EngineStayedDown, match="stopped with 5 cell"):
        done.raise_if_stopped(store.root)


def test_a_run_without_a_row_is_resubmitted_up_to_the_bound_then_given_up(tmp_path):
    spec, store = _spec(), ResultStore(tmp_path)
    first, second = plan_sweep(spec, store).pending[:2]
    lost = [NoRow("worker gone")] * 3
    work = FakeWork(spec, store, outcomes={first.cell_key: list(lost), second.cell_key: [NoRow("worker gone")]})
    done = _run(spec, store, [first, second], work, max_resubmits=2)
    assert work.submitted.count(first.cell_key) == 3 and work.submitted.count(second.cell_key) == 2
    assert (done.ran, done.resubmitted, done.given_up, done.not_run) == (1, 3, 1, 1)
    local = FakeWork(spec, store, outcomes={first.cell_key: [NoRow("crashed after retries")]})
    done = _run(spec, store, [first], local)  # a local crash is not resubmitted: the next run redoes it
    assert (local.submitted, done.given_up, done.resubmitted) == ([first.cell_key], 1, 0)


def test_a_lost_run_is_not_resubmitted_once_the_sweep_stopped(tmp_path):
    spec, store = _spec(), ResultStore(tmp_path)
    first, second = plan_sweep(spec, store).pending[:2]
    work = FakeWork(spec, store, outcomes={first.cell_key: [Stop(DISK_FULL, "full")],
                                           second.cell_key: [NoRow("worker gone")]})
    done = _run(spec, store, [first, second], work, max_resubmits=2)
    assert work.submitted == [first.cell_key, second.cell_key]
    assert (done.stopped, done.given_up, done.resubmitted) == (DISK_FULL, 1, 0)


class StoreRun:
    """A pool-like run: it ends when the store holds the cell's new row (`new_row`), which it
    writes on its second look; the first look sees only the row it replaces."""

    def __init__(self, spec: SweepSpec, store: ResultStore, cell: Cell, replaces: str | None) -> None:
        self.spec, self.store, self.cell, self.replaces, self.looks = spec, store, cell, replaces, 0

    def ended(self):
        self.looks += 1
        if self.looks == 2:
            _commit(self.store, self.spec, self.cell, "unresolved", 0.2, f"new-{self.cell.cell_key[:8]}")
        row = new_row(self.store, self.spec.sweep_id, self.cell.cell_key, self.replaces)
        return None if row is None else Committed(row.cost_usd)


def test_a_forced_cell_counts_only_a_row_other_than_the_one_it_replaces(tmp_path):
    spec, store = _spec(max_cost_usd=1.1, max_parallel=1), ResultStore(tmp_path)
    cells = plan_sweep(spec, store).cells
    for cell in cells[:2]:
        _commit(store, spec, cell, "resolved", 0.5, f"old-{cell.cell_key[:8]}")
    forced = plan_sweep(spec, store, force=True).pending
    replaces = replaced_rows(store, spec.sweep_id, forced)
    assert replaces == {c.cell_key: f"old-{c.cell_key[:8]}" for c in cells[:2]}
    assert new_row(store, spec.sweep_id, cells[0].cell_key, replaces[cells[0].cell_key]) is None
    assert new_row(store, spec.sweep_id, cells[0].cell_key, None).attempt_id == replaces[cells[0].cell_key]
    assert new_row(store, spec.sweep_id, cells[2].cell_key, None) is None
    runs: list[StoreRun] = []

    def submit(cell: Cell) -> StoreRun:
        runs.append(StoreRun(spec, store, cell, replaces.get(cell.cell_key)))
        return runs[-1]

    done = schedule(spec, store, forced, submit, LOG, poll_s=0)
    # 1.0 spent before, + 0.2 for the first forced cell's new row (paid twice): the cap stops the rest
    assert [r.cell for r in runs] == forced[:1] and runs[0].looks == 2
    assert (done.ran, done.not_run) == (1, len(forced) - 1)
    assert store.read_row(spec.sweep_id, cells[0].cell_key).attempt_id == f"new-{cells[0].cell_key[:8]}"


def test_error_rows_under_the_bound_are_retried_paid_again_and_counted_against_the_bound(tmp_path):
    spec, store = _spec(seeds=[0], max_cost_usd=2.2, max_parallel=1), ResultStore(tmp_path)
    cells = plan_sweep(spec, store).cells
    for cell in cells:
        _commit(store, spec, cell, "infra_error" if cell.claw == "oracle" else "unresolved", 0.5, "first")
    plan = plan_sweep(spec, store, retry_errors=1)
    assert {c.cell_key for c in plan.pending} == plan.retry == {c.cell_key for c in cells if c.claw == "oracle"}
    work = FakeWork(spec, store, status="infra_error", outcomes={c.cell_key: [Committed(0.25)] for c in plan.pending})
    done = _run(spec, store, plan.pending, work)
    assert (done.ran, done.not_run) == (1, 1)  # 4 x 0.5 committed, + 0.25 for the retry (paid twice): over 2.2
    first, second = (c.cell_key for c in plan.pending)
    again = plan_sweep(spec, store, retry_errors=1)
    assert again.spent == {first} and again.retry == {second}  # the retried one had its one retry
    assert store.read_row(spec.sweep_id, first).attempt_id != "first"
    left = what_is_left(store, spec.sweep_id, {c.cell_key for c in cells}, limit=1)
    assert (left.missing, dict(left.retryable), dict(left.spent)) == (0, {"infra_error": 1}, {"infra_error": 1})


def test_a_wait_hook_replaces_the_poll_sleep_and_sees_the_runs_in_flight(tmp_path, monkeypatch):
    """A local sweep waits on its runs' futures: the next cell starts when one ends, not at the
    next poll tick (a serial sweep paid half a tick per cell)."""
    import clawmark.sweeps.scheduler as scheduler

    def no_sleep(_):
        raise AssertionError("the scheduler slept instead of waiting on its runs")

    monkeypatch.setattr(scheduler.time, "sleep", no_sleep)
    spec, store = _spec(max_parallel=2), ResultStore(tmp_path)
    cells = plan_sweep(spec, store).pending
    work, waits = FakeWork(spec, store, polls=3), []
    done = schedule(spec, store, cells, work.submit, LOG, poll_s=7.5,
                    wait=lambda runs, timeout_s: waits.append(({r.cell.cell_key for r in runs}, timeout_s)))
    assert done.ran == len(cells) and waits
    assert all(len(keys) <= 2 and timeout_s == 7.5 for keys, timeout_s in waits)
    assert waits[0][0] == {c.cell_key for c in cells[:2]}
