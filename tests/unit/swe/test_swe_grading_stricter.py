"""Where clawmark's own evaluations are stricter than swebench 5.0.2, pinned next to the parity
tests: the same test output, written the way swebench's harness writes it, fools swebench's
grader; written by clawmark's harness (nonce region, exit code from the exec) it does not."""

from __future__ import annotations

from types import SimpleNamespace

from clawmark.swe.log_grading import END_MARKER, START_MARKER, NoResult, grade, region_markers
from tests.unit.swe.test_swe_eval_region import FORGED, REAL_FAILURE, ROW, printing, run, swebench_shaped
from tests.unit.swe.test_swe_grading_parity import make_row, swebench_grade

SWEBENCH_ROW = make_row("parse_log_gotest", ROW.FAIL_TO_PASS, ROW.PASS_TO_PASS)
PASSES = "--- PASS: TestFix (0.00s)\n--- PASS: TestKept (0.00s)\n"


def as_swebench_wrote_it(log_text: str, nonce: str) -> str:
    """The same run with swebench's markers: `+ : '...'` trace lines, no nonce."""
    start, end = region_markers(nonce)
    return log_text.replace(start, f"+ : '{START_MARKER}'").replace(end, f"+ : '{END_MARKER}'")


def test_forged_pass_block_and_end_marker_fool_swebench_but_not_clawmark(tmp_path):
    done = run(tmp_path, swebench_shaped(printing(FORGED + REAL_FAILURE, 1)))
    assert swebench_grade(SWEBENCH_ROW, as_swebench_wrote_it(done.log_text, done.nonce), tmp_path)[1] == "RESOLVED_FULL"
    ours = grade(SimpleNamespace(**SWEBENCH_ROW), done.log_text, nonce=done.nonce)
    assert (ours.resolution.swebench, ours.forged_markers) == ("RESOLVED_NO", True)


def test_fault_marker_in_the_printed_patch_makes_swebench_drop_a_passing_run_but_not_clawmark(tmp_path):
    done = run(tmp_path, swebench_shaped(printing(PASSES, 0), before="echo '+// >>>>> Tests Errored'\n"))
    assert swebench_grade(SWEBENCH_ROW, as_swebench_wrote_it(done.log_text, done.nonce), tmp_path) is None
    assert grade(SimpleNamespace(**SWEBENCH_ROW), done.log_text, nonce=done.nonce).resolved is True


def test_passing_lines_against_a_failing_exit_fool_swebench_but_not_clawmark(tmp_path):
    done = run(tmp_path, swebench_shaped(printing(PASSES + "clawmark:test_exit_code=0\n", 2)))
    assert swebench_grade(SWEBENCH_ROW, as_swebench_wrote_it(done.log_text, done.nonce), tmp_path)[1] == "RESOLVED_FULL"
    ours = grade(SimpleNamespace(**SWEBENCH_ROW), done.log_text, nonce=done.nonce)
    assert ours.no_result_reason is NoResult.EXIT_CODE_CONTRADICTS_LOG


def test_swe_grade_reads_a_clawmark_log_by_its_nonce(tmp_path):
    import json as json_module

    from typer.testing import CliRunner

    from clawmark.cli.main import app
    from tests.unit.swe.test_swe_grading_parity import LOGS

    done = run(tmp_path, swebench_shaped(printing(FORGED.replace("TestFix", "TestReaderRenderNoHeaders")
                                                  + "--- FAIL: TestReaderRenderNoHeaders (0.00s)\n", 1)))
    log = tmp_path / "test_output.txt"
    log.write_text(done.log_text)
    common = ["swe", "grade", "--instances", str(LOGS / "real_instances.jsonl"), "--instance-id",
              "gin-gonic__gin-2121", "--log", str(log), "--json"]
    graded = json_module.loads(CliRunner().invoke(app, [*common, "--nonce", done.nonce]).stdout)
    assert graded["forged_markers"] is True and graded["test_exit_code"] == 1
    assert "TestReaderRenderNoHeaders" in graded["tests_status"]["FAIL_TO_PASS"]["failure"]
