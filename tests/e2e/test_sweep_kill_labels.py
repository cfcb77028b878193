"""Every container a sweep creates carries its sweep, cell and attempt labels — executor, service,
check and evaluation containers, both tracks — so a resumed sweep can find what a killed run
left. A claw's helper thread (the turn runs in one) labels its containers like the attempt's."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from clawmark.results import ResultStore
from clawmark.runtime.owner import ATTEMPT_LABEL, CELL_LABEL, SWEEP_LABEL, attempt_scope
from clawmark.settings import TASKS_CATALOG

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@contextmanager
def _created(docker_client, sweep_id: str) -> Iterator[list[dict[str, str]]]:
    """Labels of every container created with this sweep's label while the block runs. Read
    live: the engine keeps only its last 256 events for `since`, too few on a shared engine."""
    events = docker_client.events(decode=True, filters={"type": "container", "event": "create",
                                                        "label": f"{SWEEP_LABEL}={sweep_id}"})
    seen: list[dict[str, str]] = []
    reader = threading.Thread(target=lambda: seen.extend(e["Actor"]["Attributes"] for e in events), daemon=True)
    reader.start()
    try:
        yield seen
    finally:
        time.sleep(1)  # the last events are on their way
        events.close()


def test_every_container_of_both_tracks_carries_sweep_cell_and_attempt(docker_client, prefect_harness, tmp_path):
    from flows.sweep import sweep

    sweep_id = f"labels-{uuid.uuid4().hex[:8]}"
    spec = {"sweep_id": sweep_id, "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
            "tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": ["oracle", "reference"],
            "models": ["scripted/cl-{task_id}"], "max_parallel": 2,
            "closed_loop": {"tasks": ["zh_201_invoice_sum"]}}
    with _created(docker_client, sweep_id) as created:
        sweep(spec=spec, results_dir=str(tmp_path / "results"))
    rows = ResultStore(tmp_path / "results").read(sweep_id)
    attempts = dict(zip(rows["cell_key"], rows["attempt_id"]))

    roles = {labels.get("clawmark.role") for labels in created}
    assert {"swe-instance", "swe-eval", "task-env", "checks"} <= roles, roles
    for labels in created:
        assert labels[CELL_LABEL] in attempts, labels  # a cell of this sweep ...
        assert labels[ATTEMPT_LABEL] == attempts[labels[CELL_LABEL]], labels  # ... and the attempt that committed it
    assert {labels[CELL_LABEL] for labels in created} == set(attempts)  # every cell's containers were seen


def test_a_container_started_in_the_claw_turn_thread_keeps_the_scope(docker_client, tmp_path):
    from clawmark.attempts.session import run_with_deadline
    from clawmark.runtime.images import ensure_image
    from clawmark.runtime.sandbox import Sandbox, SandboxConfig

    image = ensure_image("base")

    def turn() -> dict[str, str]:
        with Sandbox.provision(SandboxConfig(image=image, lifetime_seconds=60)) as box:
            return docker_client.containers.get(box.container_id).labels

    with attempt_scope("threads", "cell-1", "attempt-1"):
        labels = run_with_deadline(turn, 120)
    assert (labels[SWEEP_LABEL], labels[CELL_LABEL], labels[ATTEMPT_LABEL]) == ("threads", "cell-1", "attempt-1")
