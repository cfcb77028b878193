"""What a person reads while a sweep runs (issue 16 item 3): one line per finished cell with its
reason, a traceback on screen only for a bug of ours (harness_error); Prefect's records with
their tracebacks go to the sweep's log file, a stage's to its attempt's logs too, and reach the
screen only with --verbose."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
from prefect.logging.handlers import PrefectConsoleHandler

from clawmark.cli.sweep_live import prefect_to_file, run_live, sweep_log_path
from clawmark.results import ResultStore
from clawmark.results.synthetic import example_row
from clawmark.runtime.owner import attempt_scope
from clawmark.sweeps.progress import SweepWatcher

SPEC = SimpleNamespace(sweep_id="sweep-1", max_cost_usd=None)


@pytest.fixture(autouse=True)
def _no_flow_run(monkeypatch):
    """These records are logged outside a flow run: Prefect's API handler need not warn of it."""
    monkeypatch.setenv("PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW", "ignore")


def _failed_stage(logger_name: str = "prefect.task_runs") -> None:
    try:
        raise ConnectionError("engine went away")
    except ConnectionError:
        logging.getLogger(logger_name).error("Task run failed with exception - Retries are exhausted", exc_info=True)


def test_one_line_per_failure_and_tracebacks_in_the_log_files(tmp_path, capsys):
    store = ResultStore(tmp_path / "results")
    infra = example_row(seed=0, status="infra_error", error_message="provision: ImageMissing: no image\nx:1")
    bug = example_row(seed=1, status="harness_error", error_message="record: KeyError: 'turns'")
    good = example_row(seed=2)
    watcher = SweepWatcher(store, "sweep-1", {r.cell_key for r in (infra, bug, good)})
    watcher.prime()

    def sweep() -> dict:
        infra_logs = store.layout("sweep-1", infra.cell_key).ensure().logs
        with attempt_scope("sweep-1", infra.cell_key, infra.attempt_id):
            _failed_stage()
        bug_logs = store.layout("sweep-1", bug.cell_key).ensure().logs
        (bug_logs / "harness-error.txt").write_text("Traceback (most recent call last):\nKeyError: 'turns'\n")
        for row in (infra, bug, good):
            store.write(row)
        return {"logs": infra_logs}

    result = run_live(sweep, watcher, SPEC, store, verbose=False)
    screen = capsys.readouterr().out
    lines = [ln for ln in screen.splitlines() if ln.startswith("[")]
    assert len(lines) == 3 and "engine went away" not in screen
    assert any("infra_error" in ln and ln.endswith("— provision: ImageMissing: no image x:1") for ln in lines)
    assert [ln[:5] for ln in lines] == ["[1/3]", "[2/3]", "[3/3]"]  # committed together, counted one by one
    assert any(" pass " in ln and "—" not in ln for ln in lines)  # a success needs no reason
    assert "Traceback (most recent call last):\nKeyError: 'turns'" in screen  # a bug of ours is shown
    log_file = sweep_log_path(store, "sweep-1")
    assert f"log: {log_file}" in screen
    assert "Traceback" in log_file.read_text() and "ConnectionError: engine went away" in log_file.read_text()
    assert "ConnectionError: engine went away" in (result["logs"] / "stages.log").read_text()


@pytest.mark.parametrize("verbose", [False, True])
def test_prefect_console_shows_a_flow_warning_never_a_traceback_unless_verbose(tmp_path, verbose):
    records = []

    class Catch(PrefectConsoleHandler):  # Prefect's own console handler, recording what it would print
        def emit(self, record):
            records.append(record.getMessage())

    root, catch = logging.getLogger(), Catch()
    root.addHandler(catch)
    try:
        with prefect_to_file(tmp_path / "sweep.log", ResultStore(tmp_path / "results"), verbose=verbose):
            _failed_stage()
            _failed_stage("prefect.flow_runs")
            logging.getLogger("prefect.flow_runs").warning("Docker engine not answering")
    finally:
        root.removeHandler(catch)
    tracebacks = [m for m in records if "Retries are exhausted" in m]
    assert "Docker engine not answering" in records
    assert len(tracebacks) == (2 if verbose else 0)
    assert (tmp_path / "sweep.log").read_text().count("ConnectionError: engine went away") == 2
