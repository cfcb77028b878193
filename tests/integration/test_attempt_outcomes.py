"""Outcomes that are not a clean verdict: the host-side deadline cuts a slow claw off and its
patch is still taken; an instance whose image is missing is an infra error row (NaN, never a
fail); `clawmark run` prints the committed row."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from clawmark.claws import Budgets
from clawmark.results import ErrorKind, Status
from tests.support.attempt_fixtures import INI, INSTANCES, attempt, gateway, store  # noqa: F401

pytestmark = pytest.mark.docker


def test_host_deadline_cuts_a_slow_claw_off(store, gateway):  # noqa: F811
    row = attempt(INI, "reference", f"scripted/ref-slow-{INI}", store, gateway,
                  budgets=Budgets(seconds=1), deadline_grace_s=2)
    turn = json.loads((store.layout(row.sweep_id, row.cell_key).logs / "turn-0.json").read_text())
    assert (turn["exit_status"], turn["timeout"], turn["duration_s"]) == ("host_deadline", True, 3)
    assert row.wall.executor < 10  # cut at 1 + 2 s, not after the 20 s reply
    assert "claw host_deadline" in row.error_message
    assert (row.status, row.resolved) == (Status.EMPTY_PATCH, False)


def test_missing_image_is_an_infra_error_not_a_fail(store, gateway, monkeypatch):  # noqa: F811
    from clawmark.attempts.patch import run_patch_attempt

    broken = INSTANCES[INI].model_copy(update={"image": "clawmark/no-such-image:0", "image_recipe": None,
                                               "repo_bundle": None})
    row = run_patch_attempt(broken, "oracle", "none", 0, store, "itest", gateway)
    assert (row.status, row.error_kind, row.passed, row.resolved) == (Status.INFRA_ERROR, ErrorKind.INFRA,
                                                                      None, None)
    assert math.isnan(row.score) and "provision" in row.error_message
    assert store.has("itest", row.cell_key)


def test_clawmark_run_prints_the_committed_row(tmp_path, docker_client, monkeypatch):
    from clawmark.cli.main import app
    from clawmark.settings import settings

    monkeypatch.setenv("CLAWMARK_HOME", str(tmp_path / "home"))
    settings.cache_clear()
    args = ["run", INI, "--claw", "reference", "--model", f"scripted/ref-{INI}",
            "--results", str(tmp_path / "results"), "--json"]
    result = CliRunner().invoke(app, args)
    settings.cache_clear()
    assert result.exit_code == 0, result.output
    row = json.loads(result.output[result.output.index("{"):])
    assert (row["status"], row["claw"], row["task_id"]) == ("resolved", "reference", INI)
    assert (tmp_path / "results").is_dir() and row["usage"]["executor"]["calls"] == 5
