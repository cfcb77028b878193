"""prefect.yaml stays in step with the flows: every deployment's entrypoint imports, is a flow,
and accepts the parameters the deployment passes; the schedule and rerun deployments exist."""

from __future__ import annotations

import importlib
from pathlib import Path

import yaml

from clawmark.settings import PROJECT_ROOT


def _deployments() -> list[dict]:
    return yaml.safe_load((PROJECT_ROOT / "prefect.yaml").read_text())["deployments"]


def _flow(entrypoint: str):
    path, name = entrypoint.split(":")
    module = importlib.import_module(Path(path).with_suffix("").as_posix().replace("/", "."))
    return getattr(module, name)


def test_every_entrypoint_is_a_flow_accepting_its_parameters():
    from prefect import Flow

    for deployment in _deployments():
        flow = _flow(deployment["entrypoint"])
        assert isinstance(flow, Flow), deployment["name"]
        flow.validate_parameters(deployment.get("parameters", {}))
        for key in ("spec_file",):
            if key in deployment.get("parameters", {}):
                assert (PROJECT_ROOT / deployment["parameters"][key]).is_file(), deployment["name"]


def test_nightly_is_scheduled_and_rerun_failed_is_manual():
    by_name = {d["name"]: d for d in _deployments()}
    assert by_name["nightly"]["schedules"][0]["cron"] == "0 2 * * *"
    assert "schedules" not in by_name["rerun-failed"]
    assert {d["work_pool"]["name"] for d in by_name.values()} == {"clawmark"}
