"""`clawmark sweep` over tasks it must not provision (tests/fixtures/closed_loop_unrunnable: a
source that is a Git LFS pointer, a `.privacy` key the user lacks): it names them as not runnable
before any cell starts, their cells are refused before a container exists (`task_unrunnable`,
NaN, counted by no denominator) rather than failed after provisioning. No claw turn is taken."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from clawmark.cli.main import app
from clawmark.results import ResultStore
from tests.support.paths import FIXTURES


pytestmark = [pytest.mark.docker]
TREE = FIXTURES / "closed_loop_unrunnable"
ABSENT_KEY = "CLAWMARK_FIXTURE_ABSENT_KEY"


def test_a_sweep_lists_unrunnable_tasks_first_and_refuses_them_before_provisioning(
        docker_client, prefect_harness, tmp_path, monkeypatch):
    monkeypatch.delenv(ABSENT_KEY, raising=False)
    spec = tmp_path / "sweep.yaml"
    spec.write_text(yaml.safe_dump({
        "sweep_id": "unrunnable", "instances": None, "claws": ["reference"], "models": ["scripted/cl-{task_id}"],
        "closed_loop": {"tasks_dir": str(TREE)}}))
    results = tmp_path / "results"
    first = CliRunner().invoke(app, ["sweep", str(spec), "--results", str(results)])
    assert first.exit_code == 0, first.output
    said = first.output
    listed = [said.index(f"not runnable (refused before provisioning): {task_id}")
              for task_id in ("fx_absent_key", "fx_lfs_source")]
    assert max(listed) < said.index("sweep unrunnable: 2 run")  # both named before the sweep's own output
    assert f"{ABSENT_KEY} (missing)" in said and "sources/paper.pdf: a Git LFS pointer" in said

    frame = ResultStore(results).read("unrunnable").set_index("task_id")
    assert sorted(frame.index) == ["fx_absent_key", "fx_lfs_source"]
    assert set(frame["status"]) == {"task_unrunnable"} and set(frame["error_kind"]) == {"unrunnable"}
    assert frame["score"].map(math.isnan).all() and frame["passed"].map(pd.isna).all()
    assert dict(frame["failure_reason"]) == {"fx_absent_key": "missing_credentials", "fx_lfs_source": "missing_content"}
    for task_id, row in frame.iterrows():
        logs = Path(row["artifacts_dir"]) / "logs"
        assert not (logs / "taskenv.json").exists(), task_id  # no container was provisioned
    assert (Path(frame.loc["fx_lfs_source", "artifacts_dir"]) / "logs" / "missing-content.txt").is_file()
