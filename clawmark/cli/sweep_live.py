"""A sweep flow run in a thread while the screen shows its progress, as a person reads it.

On screen: one line per finished cell, with its reason when it is not a success (in a terminal,
above the live counts); a bug of ours (`harness_error`) adds its traceback. Prefect's records —
task-run retries and failures with their tracebacks, the temporary server's start — go to the
sweep's log file, and a stage's failure to its attempt's `logs/stages.log` too; `--verbose` also
shows them on screen, as Prefect prints them."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from clawmark.cli.console import console
from clawmark.cli.sweep_view import finished_line, progress_table

if TYPE_CHECKING:
    from rich.console import Console

    from clawmark.results import ResultStore
    from clawmark.sweeps.progress import FinishedCell, SweepWatcher
    from clawmark.sweeps.spec import SweepSpec

POLL_S = 1.0
LOG_FORMAT = "%(asctime)s %(levelname)-7s %(name)s %(run)s%(message)s"
SCREEN_LEVEL = logging.WARNING  # a flow's own warnings (engine down, cost cap) stay on screen


def sweep_log_path(store: ResultStore, sweep_id: str) -> Path:
    """`<results>/sweeps/<sweep_id>/sweep.log` (beside the pinned config); for a remote store,
    beside the local staging of its artifacts."""
    if store.is_local:
        return Path(store.root) / "sweeps" / sweep_id / "sweep.log"
    return Path(store.artifacts_root) / f"{sweep_id}.sweep.log"


def run_live(target: Callable[[], dict], watcher: SweepWatcher, spec: SweepSpec, store: ResultStore, *,
             verbose: bool) -> dict:
    """Run `target` (a flow call) in a thread; what it returns, or the exception it raised."""
    out, box = console(), {}
    log_file = sweep_log_path(store, spec.sweep_id)
    with prefect_to_file(log_file, store, verbose=verbose):
        thread = threading.Thread(target=_call, args=(target, box), daemon=True)
        thread.start()
        if out.is_terminal:
            from rich.live import Live

            with Live(progress_table(watcher, spec), console=out, refresh_per_second=2) as live:
                while thread.is_alive():
                    thread.join(POLL_S)
                    _show(watcher.poll(), watcher, spec, store, live.console)
                    live.update(progress_table(watcher, spec))
        else:
            while thread.is_alive():
                thread.join(POLL_S)
                _show(watcher.poll(), watcher, spec, store, out)
        _show(watcher.poll(), watcher, spec, store, out)  # rows committed between the last poll and the end
    out.print(f"log: {log_file}", highlight=False, markup=False, emoji=False, soft_wrap=True)
    if "error" in box:
        raise box["error"]
    return box["result"]


def _call(target: Callable[[], dict], box: dict) -> None:
    try:
        box["result"] = target()
    except BaseException as exc:  # noqa: BLE001 - re-raised by the main thread
        box["error"] = exc


def _show(cells: list[FinishedCell], watcher: SweepWatcher, spec: SweepSpec, store: ResultStore,
          out: Console) -> None:
    for cell in cells:
        out.print(finished_line(cell, watcher, spec.max_cost_usd), highlight=False, markup=False, emoji=False, soft_wrap=True)
        if cell.status == "harness_error":  # a bug of ours: its traceback belongs on screen
            trace = store.layout(spec.sweep_id, cell.cell_key).logs / "harness-error.txt"
            if trace.is_file():
                out.print(trace.read_text(errors="replace").rstrip(), highlight=False, markup=False)


class _RunFormatter(logging.Formatter):
    """LOG_FORMAT with the task or flow run a Prefect record comes from (`'provision' - `)."""

    def __init__(self) -> None:
        super().__init__(LOG_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        run = getattr(record, "task_run_name", None) or getattr(record, "flow_run_name", None)
        record.run = f"{run!r} - " if run else ""
        return super().format(record)


class _ScreenFilter(logging.Filter):
    """What Prefect's console handler still prints without --verbose: a flow's own warnings and
    errors as one line (engine down, cost cap), never a traceback, a task run's retry or failure,
    nor Prefect's own machinery (its server, its events worker)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < SCREEN_LEVEL or record.exc_info or not record.name.startswith("prefect.flow_runs"):
            return False
        return "Traceback (most recent call last)" not in record.getMessage()


class _AttemptLog(logging.Handler):
    """A stage's warning or failure (with its traceback) into the attempt's own logs/stages.log:
    the attempt scope (runtime/owner.py) says which cell's context logged it."""

    def __init__(self, store: ResultStore) -> None:
        super().__init__(logging.WARNING)
        self.store = store
        self.setFormatter(_RunFormatter())

    def emit(self, record: logging.LogRecord) -> None:
        from clawmark.runtime.owner import CELL_LABEL, SWEEP_LABEL, scope_labels

        scope = scope_labels()
        if not (record.name.startswith("prefect") and scope.get(CELL_LABEL)):
            return
        logs = self.store.layout(scope[SWEEP_LABEL], scope[CELL_LABEL]).logs
        if logs.is_dir():
            with (logs / "stages.log").open("a", encoding="utf-8") as log:
                log.write(self.format(record) + "\n")


@contextmanager
def prefect_to_file(log_file: Path, store: ResultStore, *, verbose: bool) -> Iterator[None]:
    from prefect.logging.configuration import ensure_logging_setup
    from prefect.logging.handlers import PrefectConsoleHandler

    # Prefect's logging first (else its set-up at the flow's start, finding our handler on the
    # root logger, leaves its console handler out), so what follows amends it.
    ensure_logging_setup()

    log_file.parent.mkdir(parents=True, exist_ok=True)
    to_file = logging.FileHandler(log_file, encoding="utf-8")
    to_file.setLevel(logging.INFO)
    to_file.setFormatter(_RunFormatter())
    root, prefect_logger, screen = logging.getLogger(), logging.getLogger("prefect"), _ScreenFilter()
    consoles = [h for h in root.handlers if isinstance(h, PrefectConsoleHandler)]
    level, attempt_log = prefect_logger.level, _AttemptLog(store)
    prefect_logger.setLevel(logging.INFO)  # the file gets Prefect's INFO whatever the screen shows
    root.addHandler(to_file)
    root.addHandler(attempt_log)
    for handler in consoles if not verbose else []:
        handler.addFilter(screen)
    try:
        yield
    finally:
        for handler in consoles:
            handler.removeFilter(screen)
        root.removeHandler(attempt_log)
        root.removeHandler(to_file)
        to_file.close()
        prefect_logger.setLevel(level)
