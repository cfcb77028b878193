"""What `clawmark sweep` shows while a sweep runs, read from the store alone: skipped (committed
before this run), done, running (a cell lease or a local artifact folder without a row), failed,
left, spend against the cap; and the one line per finished cell printed without a terminal."""

from __future__ import annotations

import time
from types import SimpleNamespace

from rich.console import Console

from clawmark.cli.sweep_view import finished_line, progress_table, status_table
from clawmark.results import ROLES, ResultStore, RoleUsage
from clawmark.results.lease import cell_lease
from clawmark.results.synthetic import example_row
from clawmark.sweeps.progress import SweepWatcher


def _text(table) -> str:
    console = Console(record=True, width=220)
    console.print(table)
    return console.export_text()


def _row(seed: int, usd: float, **extra):
    usage = {role: RoleUsage(calls=1, cost_usd=usd if role == "executor" else 0.0) for role in ROLES}
    return example_row(seed=seed, usage=usage, **extra)


def test_counts_while_a_sweep_runs(tmp_path):
    store = ResultStore(tmp_path / "results")
    reused, fresh, crashed, leased, waiting = (_row(0, 0.25), _row(1, 0.5), _row(2, 0.0, status="infra_error"),
                                               _row(3, 0.0), _row(4, 0.0))
    store.write(reused)
    watcher = SweepWatcher(store, "sweep-1", {r.cell_key for r in (reused, fresh, crashed, leased, waiting)})
    watcher.prime()
    lease = cell_lease(store, "sweep-1", leased.cell_key).acquire()  # a pool worker runs it
    store.write(fresh)
    store.write(crashed)
    finished = watcher.poll()
    assert [c.cell_key for c in finished] == sorted([fresh.cell_key, crashed.cell_key])
    c = watcher.counts
    assert (c.planned, c.skipped, c.done_now, c.running, c.errors, c.left) == (5, 1, 2, 1, 1, 2)
    assert c.spent_usd == 0.75

    spec = SimpleNamespace(sweep_id="sweep-1", max_cost_usd=2.0)
    live = _text(progress_table(watcher, spec))
    assert "skipped" in live and "failed" in live and "$0.7500 of $2.00 cap" in live
    assert "│       5 │       1 │    2 │       1 │      1 │    2 │" in live
    line = finished_line(finished[0], watcher, spec.max_cost_usd)  # two cells in one poll: [2/5], then [3/5]
    assert line.startswith("[2/5]") and "failed 1, skipped 1" in line and "spend $0.7500 of $2.00 cap" in line
    assert finished_line(finished[1], watcher, spec.max_cost_usd).startswith("[3/5]")
    assert "infra_error 1, pass 2" in _text(status_table(watcher, "sweep-1"))
    lease.release()
    watcher.poll()
    assert watcher.counts.running == 0


def test_forced_cells_count_when_their_new_row_lands_not_before(tmp_path):
    store = ResultStore(tmp_path / "results")
    kept, forced, also_forced = _row(0, 0.25), _row(1, 0.5), _row(2, 0.5)
    for row in (kept, forced, also_forced):
        store.write(row)
    planned = {r.cell_key for r in (kept, forced, also_forced)}
    watcher = SweepWatcher(store, "sweep-1", planned, rerun={forced.cell_key, also_forced.cell_key})
    watcher.prime()
    assert (watcher.counts.skipped, watcher.counts.done_now, watcher.counts.left) == (1, 0, 2)
    assert watcher.poll() == []  # the old rows of the forced cells are not news
    time.sleep(0.05)  # a row file's mtime moves on at the kernel's clock tick
    store.write(forced.model_copy(update={"attempt_id": "the-rerun"}))
    assert [c.cell_key for c in watcher.poll()] == [forced.cell_key]
    assert (watcher.counts.done_now, watcher.counts.left, watcher.counts.spent_usd) == (1, 1, 0.75)
    assert watcher.poll() == []


def test_cells_folded_into_the_compacted_file_by_this_run_still_count(tmp_path):
    store = ResultStore(tmp_path / "results")
    first, second = _row(0, 0.25), _row(1, 0.5)
    planned = {first.cell_key, second.cell_key}
    watcher = SweepWatcher(store, "sweep-1", planned, rerun=planned)  # a fresh sweep: both to run
    watcher.prime()
    store.write(first)
    assert [c.cell_key for c in watcher.poll()] == [first.cell_key]
    store.write(second)
    store.compact("sweep-1")  # the sweep's end folds its rows before the last poll
    assert [c.cell_key for c in watcher.poll()] == [second.cell_key]
    assert (watcher.counts.done_now, watcher.counts.left) == (2, 0)


def test_a_forced_cell_whose_old_row_is_compacted_counts_once_its_run_folds_again(tmp_path):
    store = ResultStore(tmp_path / "results")
    old = _row(0, 0.25)
    store.write(old)
    store.compact("sweep-1")
    watcher = SweepWatcher(store, "sweep-1", {old.cell_key}, rerun={old.cell_key})
    watcher.prime()
    assert watcher.poll() == []  # the old, compacted row is not news
    time.sleep(0.05)
    store.write(old.model_copy(update={"attempt_id": "the-rerun"}))
    store.compact("sweep-1")
    assert [c.cell_key for c in watcher.poll()] == [old.cell_key]
