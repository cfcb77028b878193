"""A pool worker runs its own installed clawmark: the deployment's pull step refuses other code,
and the spec's paths under the coordinator's checkout become the worker's own."""

from __future__ import annotations

import os

import pytest
from prefect.settings import PREFECT_LOGGING_TO_API_ENABLED, temporary_settings

from clawmark.runtime import worker_image
from clawmark.runtime.shipped_code import code_digest, copy_shipped
from clawmark.settings import PROJECT_ROOT, TASKS_CATALOG
from clawmark.sweeps import worker_code
from clawmark.sweeps.spec import SweepSpec, rebased


def test_paths_under_the_coordinators_checkout_become_the_workers():
    spec = SweepSpec(sweep_id="s", tasks=["t"], claws=["nop"], models=["scripted/demo"],
                     instances=TASKS_CATALOG / "swe" / "instances.jsonl").model_dump(mode="json")
    spec["closed_loop"] = {"tasks_dir": "/home/me/clawmark/tasks_catalog/closed_loop", "base_skills": ["pdf"],
                           "web": {"archive": "/data/web"}}
    moved = rebased(rebased(spec, str(PROJECT_ROOT), "/home/me/clawmark"), "/home/me/clawmark", "/opt/clawmark")
    assert moved["instances"] == "/opt/clawmark/tasks_catalog/swe/instances.jsonl"
    assert moved["closed_loop"]["tasks_dir"] == "/opt/clawmark/tasks_catalog/closed_loop"
    assert moved["closed_loop"]["web"]["archive"] == "/data/web"  # outside the checkout: the same path
    assert moved["closed_loop"]["base_skills"] == ["pdf"] and moved["sweep_id"] == "s"
    assert rebased("/home/me/clawmark-other/x", "/home/me/clawmark", "/opt/c") == "/home/me/clawmark-other/x"


def test_the_digest_is_the_code_not_where_it_lies_nor_its_bytecode(tmp_path):
    copied = tmp_path / "checkout"
    copy_shipped(PROJECT_ROOT, copied)
    assert code_digest(copied) == code_digest(PROJECT_ROOT)
    (copied / "flows" / "__pycache__").mkdir(exist_ok=True)
    (copied / "flows" / "__pycache__" / "cell.cpython-311.pyc").write_bytes(b"\0")
    assert code_digest(copied) == code_digest(PROJECT_ROOT)
    (copied / "flows" / "cell.py").write_text((copied / "flows" / "cell.py").read_text() + "\n# changed\n")
    assert code_digest(copied) != code_digest(PROJECT_ROOT)


def test_the_pull_step_enters_the_same_code_and_refuses_other_code(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("PREFECT__FLOW_RUN_ID", "6f1c2a9e-0000-4000-8000-000000000001")
    monkeypatch.chdir(tmp_path)
    here = code_digest(PROJECT_ROOT)
    assert worker_code.same_code(here, "/elsewhere") == {"directory": str(PROJECT_ROOT), "code": here}
    assert os.getcwd() == str(PROJECT_ROOT)
    monkeypatch.chdir(tmp_path)
    # no server here: Prefect's API log handler would start a temporary one to ship the record to
    with temporary_settings({PREFECT_LOGGING_TO_API_ENABLED: False}), \
            pytest.raises(worker_code.WorkerCodeDiffers, match=r"started from code 0123456789abcdef at /elsewhere"):
        worker_code.same_code("0123456789abcdef", "/elsewhere")
    assert os.getcwd() == str(tmp_path)
    # the refusal reaches the run's logs on the server, where the coordinator reads a dead run's cause
    [logged] = [r for r in caplog.records if r.name == worker_code.RUN_LOGGER]
    assert logged.levelname == "ERROR" and "started from code 0123456789abcdef" in logged.getMessage()
    assert logged.flow_run_id == "6f1c2a9e-0000-4000-8000-000000000001"


def test_the_worker_image_installs_the_projects_own_requirements():
    listed = worker_image.requirements()
    assert any(r.startswith("prefect") for r in listed) and not any(r.startswith("pytest") for r in listed)
