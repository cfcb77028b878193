"""Nightly regression: the nightly sweep under a dated id, compared with the previous night."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from prefect import flow, get_run_logger

from clawmark.sweeps import load_spec
from analysis.regression import regressions
from clawmark.settings import TASKS_CATALOG
from flows.sweep import _store, sweep

NIGHTLY_SPEC = TASKS_CATALOG / "sweeps" / "nightly.yaml"


@flow(name="nightly", log_prints=True)
def nightly(spec_file: str = str(NIGHTLY_SPEC), results_dir: str | None = None,
            date: str | None = None) -> dict[str, Any]:
    spec = load_spec(spec_file)
    day = date or datetime.now(UTC).strftime("%Y%m%d")
    tonight = f"{spec.sweep_id}-{day}"
    result = sweep(spec=spec.model_copy(update={"sweep_id": tonight}).model_dump(mode="json"),
                   results_dir=results_dir)
    store = _store(results_dir)
    earlier = sorted(s for s in store.sweeps() if s.startswith(f"{spec.sweep_id}-") and s < tonight)
    if not earlier:
        return {**result, "regressions": []}
    found = regressions(store.read(earlier[-1]), store.read(tonight))
    for line in found:
        get_run_logger().warning("regression vs %s: %s", earlier[-1], line)
    return {**result, "baseline": earlier[-1], "regressions": found}
