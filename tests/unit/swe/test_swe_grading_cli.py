"""`clawmark swe grade`: grades a saved log with no Docker; bad input is one line, exit 1."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from clawmark.cli.main import app
from tests.unit.swe.test_swe_grading_parity import LOGS, make_row

INSTANCES = LOGS / "real_instances.jsonl"
GIN = "gin-gonic__gin-2121"  # F2P: TestContextRenderDataFromReaderNoHeaders, TestReaderRenderNoHeaders


@pytest.fixture
def gin_log(tmp_path):
    path = tmp_path / "test_output.txt"
    path.write_text("+ : '>>>>> Start Test Output'\n"
                    "--- PASS: TestContextRenderDataFromReaderNoHeaders (0.00s)\n"
                    "--- FAIL: TestReaderRenderNoHeaders (0.00s)\n"
                    "--- PASS: TestContextRenderDataFromReader (0.00s)\n"
                    "+ : '>>>>> End Test Output'\nclawmark:test_exit_code=1\n")
    return path


def invoke(*args: str):
    return CliRunner().invoke(app, ["swe", "grade", *args])


def test_json_output_carries_the_grade(gin_log):
    result = invoke("--instances", str(INSTANCES), "--instance-id", GIN, "--log", str(gin_log), "--json")
    assert result.exit_code == 0, result.output
    graded = json.loads(result.stdout)
    assert graded["resolution"] == "RESOLVED_PARTIAL" and graded["resolved"] is False
    assert graded["tests_status"]["FAIL_TO_PASS"] == {"success": ["TestContextRenderDataFromReaderNoHeaders"],
                                                      "failure": ["TestReaderRenderNoHeaders"]}


def test_table_output_names_verdict_and_tests(gin_log):
    result = invoke("--instances", str(INSTANCES), "--instance-id", GIN, "--log", str(gin_log))
    assert result.exit_code == 0, result.output
    assert "RESOLVED_PARTIAL" in result.stdout and "TestReaderRenderNoHeaders" in result.stdout
    assert "test exit code 1" in result.stdout


def test_no_result_is_an_outcome_not_an_error(tmp_path):
    log = tmp_path / "cut.txt"
    log.write_text("+ : '>>>>> Start Test Output'\n--- PASS: TestReaderRenderNoHeaders (0.00s)\n")
    result = invoke("--instances", str(INSTANCES), "--instance-id", GIN, "--log", str(log))
    assert result.exit_code == 0
    assert "no result" in result.stdout and "end_marker_missing" in result.stdout


def _assert_one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0]


def test_unknown_instance_id(gin_log):
    result = invoke("--instances", str(INSTANCES), "--instance-id", "nobody__nothing-1", "--log", str(gin_log))
    _assert_one_line_error(result, str(INSTANCES), "instance_id", "nobody__nothing-1")


def test_unreadable_log(tmp_path):
    missing = tmp_path / "missing.txt"
    result = invoke("--instances", str(INSTANCES), "--instance-id", GIN, "--log", str(missing))
    _assert_one_line_error(result, str(missing), "readable")


def test_unreadable_instance_file(gin_log, tmp_path):
    bad = tmp_path / "instances.jsonl"
    bad.write_text("{not json\n")
    result = invoke("--instances", str(bad), "--instance-id", GIN, "--log", str(gin_log))
    _assert_one_line_error(result, str(bad))


def test_unknown_log_parser(gin_log, tmp_path):
    instances = tmp_path / "instances.jsonl"
    instances.write_text(json.dumps(make_row("parse_log_cobol", ["a"], [])) + "\n")
    result = invoke("--instances", str(instances), "--instance-id", "owner__repo-1", "--log", str(gin_log))
    _assert_one_line_error(result, "owner__repo-1", "unknown log_parser 'parse_log_cobol'")
