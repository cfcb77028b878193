"""`clawmark swe evaluate` refuses unusable input with one clear line and a non-zero exit
(checked before any container is started, so no Docker here)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from clawmark.cli.main import app
from clawmark.settings import TASKS_CATALOG

INSTANCES = TASKS_CATALOG / "swe" / "instances.jsonl"


def _invoke(*args: str):
    return CliRunner().invoke(app, ["swe", "evaluate", *args])


def test_predictions_with_no_usable_line_exit_2_naming_file_and_line(tmp_path):
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"instance_id": "a", "model_patch": "x"}\nnot json\n')
    result = _invoke("--instances", str(INSTANCES), "--predictions", str(preds))
    assert result.exit_code == 2
    assert f"{preds}:1: model_name_or_path: expected a value" in result.output
    assert f"{preds}:2: <line>: expected one JSON object" in result.output
    assert "no usable prediction lines" in result.output and "Traceback" not in result.output


def test_bad_instances_file_exit_2_with_catalog_error(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"instance_id": "x"}) + "\n")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"instance_id": "x", "model_name_or_path": "m", "model_patch": "d"}) + "\n")
    result = _invoke("--instances", str(rows), "--predictions", str(preds))
    assert result.exit_code == 2 and str(rows) in result.output and "Traceback" not in result.output


def test_missing_predictions_file_exit_2(tmp_path):
    result = _invoke("--instances", str(INSTANCES), "--predictions", str(tmp_path / "absent.jsonl"))
    assert result.exit_code == 2 and "expected an existing predictions file" in result.output
