"""Which error rows a run of a sweep retries, and what is left after it.

A row with an error status (infra_error, rate_limit, harness_error, pre_exec_failed,
eval_error: the claw × model was never measured) is retried by the next run of the sweep, up to
`retry_errors` times per cell across runs: the retries a cell already had are its replaced error
rows in the store's history (clawmark.results.history). A measured failure (fail, unresolved,
empty_patch, a budget or timeout stop, ...) is never retried. Past the bound the error row stays,
and `rerun-failed` (which has no bound: an operator's explicit choice) is the way to try again.

The default bound is 3, as Inspect's eval sets retry a failed task (their default is 10, with
waits of 30 s doubling). Ours is lower because each attempt's stages already retry their own
infrastructure failures with backoff (flows/attempt.py): a cell whose row is still an error has
outlasted those, so another whole attempt is worth a few tries across runs (an engine restart, a
rate-limit window, a race fixed since), not ten runs of a deterministic bug.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from clawmark.results import ResultStore, Status, is_error
from clawmark.results.history import replaced_errors

DEFAULT_RETRY_ERRORS = 3


def error_rows(store: ResultStore, sweep_id: str, keys: set[str]) -> dict[str, str]:
    """cell key -> status of each committed row among `keys` that is an error."""
    frame = store.read(sweep_id, columns=["cell_key", "status"])
    return {k: str(s) for k, s in zip(frame["cell_key"], frame["status"]) if k in keys and is_error(Status(s))}


@dataclass
class Retries:
    """The error cells of a plan: those this run retries, and those past the bound."""

    retry: set[str] = field(default_factory=set)
    spent: set[str] = field(default_factory=set)


def select_retries(store: ResultStore, sweep_id: str, committed: set[str], limit: int) -> Retries:
    """Of the committed cells, the error ones with fewer than `limit` retries behind them."""
    errors = error_rows(store, sweep_id, committed)
    if not errors:
        return Retries()
    had = replaced_errors(store, sweep_id)
    retry = {key for key in errors if had[key] < limit}
    return Retries(retry, set(errors) - retry)


@dataclass
class Left:
    """What a sweep's planned cells still lack after a run."""

    retryable: Counter = field(default_factory=Counter)  # status -> error cells the next run retries
    spent: Counter = field(default_factory=Counter)  # status -> error cells past the retry bound
    missing: int = 0  # planned cells with no row (cost cap, engine down, a crash)

    @property
    def nothing(self) -> bool:
        return not (self.retryable or self.spent or self.missing)


def what_is_left(store: ResultStore, sweep_id: str, planned: set[str], limit: int) -> Left:
    errors = error_rows(store, sweep_id, planned)
    had = replaced_errors(store, sweep_id) if errors else Counter()
    left = Left(missing=len(planned - store.completed_cells(sweep_id)))
    for key, status in errors.items():
        (left.retryable if had[key] < limit else left.spent)[status] += 1
    return left
