"""Wall time per phase of an attempt (NaN for phases that never ran), and its clean-up steps."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from clawmark.attempts.seams import AttemptStore
from clawmark.results import AttemptLayout, AttemptRow, PhaseTimes
from clawmark.runtime.owner import open_scope
from clawmark.stopwatch import Stopwatch


class PhaseClock:
    def __init__(self) -> None:
        self.watch = Stopwatch()
        self.seconds: dict[str, float] = {}

    @property
    def start(self) -> float:
        return self.watch.start

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        watch = Stopwatch()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + watch.seconds()

    def times(self) -> PhaseTimes:
        return PhaseTimes(**self.seconds, total=self.watch.seconds())


def run_cleanup(layout: AttemptLayout, step: str, action: Callable[[], object]) -> None:
    """Clean-up always runs and never hides the attempt's outcome; failures are logged in
    `logs/cleanup-errors.txt` (the janitor reaps what a failed teardown leaves)."""
    try:
        action()
    except Exception as exc:  # noqa: BLE001 - logged, never raised over the attempt's own outcome
        with (layout.logs / "cleanup-errors.txt").open("a") as log:
            log.write(f"{step}: {type(exc).__name__}: {exc}\n")


def open_cell(store: AttemptStore, sweep_id: str, fields: dict[str, object],
              saved_config: dict[str, object]) -> tuple[AttemptLayout, str, str]:
    """(layout, attempt id, config hash) of a fresh attempt of the cell `fields` names: its key
    computed from the identity, its artifact folder emptied and laid out, its config saved; the
    containers the attempt creates in this context are labelled with its sweep, cell and attempt."""
    probe = AttemptRow(status="infra_error", **fields)  # computes the cell key from the identity
    attempt_id = uuid.uuid4().hex[:16]
    open_scope(sweep_id, probe.cell_key, attempt_id)  # every container from here on carries sweep, cell, attempt
    layout = store.layout(sweep_id, probe.cell_key)
    layout.clear()
    layout.ensure()
    return layout, attempt_id, layout.write_config(saved_config)
