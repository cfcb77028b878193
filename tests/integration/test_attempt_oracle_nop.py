"""Every bundled instance through the full attempt path (env, claw, extraction, fresh-container
evaluation, row): the oracle resolves it, the no-op claw does not. An instance failing either is
broken, whatever any real claw scores on it."""

from __future__ import annotations

import json

import pytest

from clawmark.results import Status
from tests.support.attempt_fixtures import INSTANCES, attempt, gateway, store  # noqa: F401

pytestmark = pytest.mark.docker


@pytest.mark.parametrize("instance_id", sorted(INSTANCES))
def test_oracle_resolves(instance_id, store, gateway):  # noqa: F811
    row = attempt(instance_id, "oracle", "none", store, gateway)
    assert (row.status, row.resolved, row.error_message) == (Status.RESOLVED, True, None)
    layout = store.layout(row.sweep_id, row.cell_key)
    report = json.loads(layout.report.read_text())
    assert report[instance_id]["resolved"] is True
    assert store.has("itest", row.cell_key)


@pytest.mark.parametrize("instance_id", sorted(INSTANCES))
def test_nop_does_not_resolve(instance_id, store, gateway):  # noqa: F811
    row = attempt(instance_id, "nop", "none", store, gateway)
    assert (row.status, row.resolved) == (Status.EMPTY_PATCH, False)
    prediction = json.loads((store.layout(row.sweep_id, row.cell_key).dir / "predictions.jsonl").read_text())
    assert prediction["model_patch"] is None
