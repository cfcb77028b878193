"""Helpers of the fault tests: a sweep spec over the bundled fixture instance, the rows of a
sweep as (status, error kind, attempt) per cell, and the nothing-lost-nothing-duplicated check."""

from __future__ import annotations

from typing import Any

from clawmark.results import ResultStore
from clawmark.settings import TASKS_CATALOG

INSTANCE = "clawmark-fixtures__iniparse-py-1"


def spec(sweep_id: str, claws: list[str], models: list[str], **fields: Any) -> dict[str, Any]:
    return {"sweep_id": sweep_id, "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
            "tasks": [INSTANCE], "claws": claws, "models": models, **fields}


def rows(store: ResultStore, sweep_id: str) -> dict[str, dict[str, Any]]:
    """cell key -> its row's fields; fails when a cell has two rows or a row file is unreadable."""
    result = store.read_report(sweep_id)
    assert result.bad_files == [], result.bad_files
    frame = result.frame
    keys = list(frame["cell_key"]) if not frame.empty else []
    assert len(keys) == len(set(keys)), f"duplicated rows: {sorted(k for k in keys if keys.count(k) > 1)}"
    return {record["cell_key"]: record for record in frame.to_dict("records")} if keys else {}


def set_limits(**limits: int) -> None:
    """Prefect global concurrency limits by slot name (as an operator sets them in the UI)."""
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        for name, limit in limits.items():
            client.upsert_global_concurrency_limit_by_name(name, limit)


def assert_kept(before: dict[str, dict], after: dict[str, dict], rerun: set[str] = frozenset()) -> None:
    """Nothing lost: every cell with a row before has one after; rows not rerun are untouched."""
    assert set(before) <= set(after), f"rows lost: {sorted(set(before) - set(after))}"
    for key, row in before.items():
        if key not in rerun:
            assert after[key]["attempt_id"] == row["attempt_id"], f"{key} ran again"
