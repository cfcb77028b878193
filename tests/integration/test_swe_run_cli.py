"""`clawmark swe evaluate` end to end on a mixed predictions file: oracle, empty, a patch that
does not apply, a malformed line, an unknown id and a row whose image is missing. Each gets a
clear message or typed status, the rest completes, and the exit code is 0."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from clawmark.catalog import load_instances
from clawmark.cli.main import app
from clawmark.settings import TASKS_CATALOG

pytestmark = pytest.mark.docker


def test_mixed_run_completes_with_typed_statuses(tmp_path, docker_client):
    rows = [json.loads(line) for line in (TASKS_CATALOG / "swe" / "instances.jsonl").read_text().splitlines()]
    first, second, third = (dict(row) for row in rows[:3])
    for row in rows:
        row["repo_bundle"] = str(TASKS_CATALOG / "swe" / row["repo_bundle"])
        row["image_recipe"] = str(TASKS_CATALOG / "swe" / row["image_recipe"]) if row.get("image_recipe") else None
    absent = {**rows[0], "instance_id": "custom__absent-image-1", "image": "clawmark-test/never-built:absent"}
    instances = tmp_path / "instances.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in [*rows, absent]))
    assert len(load_instances(instances)) == len(rows) + 1

    def pred(iid, patch):
        return json.dumps({"instance_id": iid, "model_name_or_path": "org/oracle", "model_patch": patch})

    preds = tmp_path / "preds.jsonl"
    preds.write_text("\n".join([
        pred(first["instance_id"], first["patch"]), pred(second["instance_id"], None),
        pred(third["instance_id"], "diff --git a/zz b/zz\n--- a/zz\n+++ b/zz\n@@ -1 +1 @@\n-a\n+b\n"),
        "{oops", pred("nobody__knows-1", "x"), pred("custom__absent-image-1", first["patch"]),
    ]) + "\n")
    result = CliRunner().invoke(app, ["swe", "evaluate", "--instances", str(instances), "--predictions", str(preds),
                                      "--run-id", "mixed", "--out", str(tmp_path / "out"), "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert f"{preds}:4: <line>: expected one JSON object" in result.output
    assert "unknown instance id 'nobody__knows-1'" in result.output
    summary = json.loads((tmp_path / "out" / "mixed" / "run_summary.json").read_text())
    assert summary["resolved_ids"] == [first["instance_id"]]
    assert summary["empty_patch_ids"] == [second["instance_id"]]
    assert summary["apply_failed_ids"] == [third["instance_id"]]
    assert summary["image_missing_ids"] == ["custom__absent-image-1"]
    assert summary["unknown_instance_ids"] == ["nobody__knows-1"]
    assert summary["error_instances"] == 2 and summary["completed_instances"] == 1
    report = tmp_path / "out" / "mixed" / "org__oracle" / first["instance_id"] / "report.json"
    assert json.loads(report.read_text())[first["instance_id"]]["resolved"] is True
