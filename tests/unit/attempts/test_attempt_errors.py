"""A bug of ours inside an attempt is a committed harness_error row (NaN, counted apart and
rerun by sweeps), never an exception that kills the sweep and never a fail."""

from __future__ import annotations

import math

from clawmark.attempts.patch import run_patch_attempt
from clawmark.results import ErrorKind, ResultStore, Status
from tests.support.claws_host import INI, instance


class NotAGateway:
    """Stands for a broken gateway object: it has none of the gateway's methods."""


def test_harness_failure_becomes_a_typed_row(tmp_path):
    store = ResultStore(tmp_path / "results")
    row = run_patch_attempt(instance(INI), "nop", "none", 0, store, "unit", NotAGateway())
    assert (row.status, row.error_kind, row.passed, row.resolved) == (Status.HARNESS_ERROR, ErrorKind.HARNESS,
                                                                      None, None)
    assert math.isnan(row.score) and "AttributeError" in row.error_message
    layout = store.layout("unit", row.cell_key)
    assert "Traceback" in (layout.logs / "harness-error.txt").read_text()
    assert store.has("unit", row.cell_key) and layout.is_complete()
