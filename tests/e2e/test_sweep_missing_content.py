"""A sweep over a task whose package holds a Git LFS pointer: the cell is refused before its
container is provisioned, its row is `task_unrunnable` (NaN, no denominator counts it), and a
resumed sweep does not run it again."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from clawmark.results import ResultStore
from tests.unit.test_catalog_content import POINTER
from tests.unit.test_catalog_tasks import make_task

pytestmark = [pytest.mark.docker]


def test_a_sweep_refuses_a_task_with_missing_content_before_provisioning(docker_client, prefect_harness, tmp_path):
    from flows.sweep import sweep

    make_task(tmp_path / "tree", spec={"task_id": "lfs_sweep", "sources": ["paper.pdf"]},
              files={"sources/paper.pdf": POINTER})
    spec = tmp_path / "sweep.yaml"
    spec.write_text(yaml.safe_dump({
        "sweep_id": "lfs", "instances": None, "claws": ["reference"], "models": ["scripted/cl-{task_id}"],
        "closed_loop": {"tasks_dir": str(tmp_path / "tree")}}))
    results = tmp_path / "results"
    first = sweep(spec_file=str(spec), results_dir=str(results))
    frame = ResultStore(results).read("lfs")
    assert first["ran"] == 1 and list(frame["status"]) == ["task_unrunnable"]
    row = frame.iloc[0]
    assert row["error_kind"] == "unrunnable" and math.isnan(row["score"]) and pd.isna(row["passed"])
    assert "sources/paper.pdf: a Git LFS pointer" in row["error_message"]
    logs = Path(row["artifacts_dir"]) / "logs"
    assert (logs / "missing-content.txt").is_file()
    assert not (logs / "taskenv.json").exists()  # the task environment never started: no container
    again = sweep(spec_file=str(spec), results_dir=str(results))
    assert (again["ran"], again["skipped"]) == (0, 1)
