"""Logs that must give "no result" (typed), never "unresolved" — checked against swebench's
`found=False` — and the places where we choose to differ from swebench, on purpose."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from clawmark.swe.log_grading import END_MARKER, START_MARKER, GradingError, NoResult, grade, recorded_exit_code
from clawmark.swe.parsers import LogParserError, UnknownLogParser, parse_log
from tests.unit.swe.test_swe_grading_parity import LOGS, make_row, our_grade, swebench_grade

GO_ROW = make_row("parse_log_gotest", ["TestRenderHTML"], ["TestRenderJSON"])
FAKE_PASSES = "--- PASS: TestRenderHTML (0.00s)\n--- PASS: TestRenderJSON (0.00s)"


def marked(body: str, exit_code: int | None = None, before: str = "") -> str:
    tail = f"clawmark:test_exit_code={exit_code}\n" if exit_code is not None else ""
    return f"{before}+ : '{START_MARKER}'\n{body}\n+ : '{END_MARKER}'\n{tail}"


def reason(row: dict, log: str) -> NoResult | None:
    from clawmark.catalog import SweInstance

    return grade(SweInstance.model_validate(row), log).no_result_reason


NO_RESULT_LOGS = {
    "end marker missing": (marked(FAKE_PASSES).split(f"+ : '{END_MARKER}'")[0], NoResult.END_MARKER_MISSING),
    "start marker missing": (FAKE_PASSES + f"\n+ : '{END_MARKER}'\n", NoResult.START_MARKER_MISSING),
    "patch apply failed": (">>>>> Patch Apply Failed\n" + marked(FAKE_PASSES), NoResult.PATCH_APPLY_FAILED),
    "tests timed out": (marked(FAKE_PASSES) + ">>>>> Tests Timed Out\n", NoResult.TESTS_TIMED_OUT),
    "tests errored": (marked(FAKE_PASSES) + ">>>>> Tests Errored\n", NoResult.TESTS_ERRORED),
    "reset failed": (">>>>> Reset Failed\n" + marked(FAKE_PASSES), NoResult.RESET_FAILED),
    "suite never ran": (marked("# github.com/x/render\nrender.go:12: undefined: Foo\nFAIL [build failed]", 2),
                        NoResult.SUITE_DID_NOT_RUN),
    "fake PASSED lines, exit 1": (marked(FAKE_PASSES, exit_code=1), NoResult.EXIT_CODE_CONTRADICTS_LOG),
}


@pytest.mark.parametrize("case", sorted(NO_RESULT_LOGS))
def test_untrustworthy_log_gives_typed_no_result_like_swebench(case, tmp_path):
    log, expected = NO_RESULT_LOGS[case]
    assert reason(GO_ROW, log) is expected
    assert grade(SimpleNamespace(**GO_ROW), log).resolution is None
    assert our_grade(GO_ROW, log) is None
    assert swebench_grade(GO_ROW, log, tmp_path) is None


def test_nonzero_exit_with_a_failing_test_is_an_ordinary_grade(tmp_path):
    log = (LOGS / "gotest.log").read_text()
    assert recorded_exit_code(log) == grade(SimpleNamespace(**GO_ROW), log).test_exit_code == 1
    assert our_grade(GO_ROW, log) == swebench_grade(GO_ROW, log, tmp_path) is not None


def test_without_an_exit_code_line_fake_passes_are_trusted_like_swebench(tmp_path):
    log = marked(FAKE_PASSES)
    assert recorded_exit_code(log) is None
    assert our_grade(GO_ROW, log) == swebench_grade(GO_ROW, log, tmp_path)
    assert our_grade(GO_ROW, log)[1] == "RESOLVED_FULL"


def test_suite_ran_without_per_test_lines_is_graded_not_dropped(tmp_path):
    row = make_row("parse_log_jest", ["a"], [])
    log = marked("Tests:       3 passed, 3 total\nTime: 1s", exit_code=0)
    assert our_grade(row, log) == swebench_grade(row, log, tmp_path) == (
        {"FAIL_TO_PASS": {"success": [], "failure": ["a"]}, "PASS_TO_PASS": {"success": [], "failure": []},
         "FAIL_TO_FAIL": {"success": [], "failure": []}, "PASS_TO_FAIL": {"success": [], "failure": []}},
        "RESOLVED_NO")


def test_swebench_exit_code_line_is_read_when_ours_is_absent():
    log = marked(FAKE_PASSES) + ">>>>> Test Exit Code: 3\n"
    assert recorded_exit_code(log) == 3
    assert reason(GO_ROW, log) is NoResult.EXIT_CODE_CONTRADICTS_LOG


# Deliberate differences from swebench 5.0.2


def test_divergence_results_outside_the_markers_are_never_parsed(tmp_path):
    """swebench re-parses the whole log when the marked region yields nothing, so PASSED lines
    printed before the start marker (e.g. by a patched setup step) would grade. We refuse."""
    log = marked("", before=FAKE_PASSES + "\n")
    assert swebench_grade(GO_ROW, log, tmp_path)[1] == "RESOLVED_FULL"
    assert reason(GO_ROW, log) is NoResult.SUITE_DID_NOT_RUN


def test_divergence_last_exit_code_line_wins_so_code_under_test_cannot_forge_it(tmp_path):
    """swebench takes the FIRST exit-code line; a test can print one inside its output."""
    log = marked(FAKE_PASSES + "\nclawmark:test_exit_code=0", exit_code=1)
    assert swebench_grade(GO_ROW, log, tmp_path)[1] == "RESOLVED_FULL"
    assert reason(GO_ROW, log) is NoResult.EXIT_CODE_CONTRADICTS_LOG


def test_divergence_unreadable_doctest_xml_parses_to_nothing_instead_of_raising():
    assert parse_log("parse_log_doctest", '<doctest><TestCase name="a<b"></doctest>') == {}


def test_unknown_log_parser_is_a_clear_error():
    with pytest.raises(UnknownLogParser, match="unknown log_parser 'parse_log_pytset'.*parse_log_pytest"):
        parse_log("parse_log_pytset", "PASSED a")
    with pytest.raises(UnknownLogParser):
        grade(SimpleNamespace(**make_row("parse_log_nope", ["a"], [])), marked("PASSED a"))


def test_per_instance_parser_rejects_an_instance_it_does_not_know():
    with pytest.raises(LogParserError, match="immutable-js__immutable-js-9999"):
        parse_log("parse_log_immutable_js", "[PASSED] a", "immutable-js__immutable-js-9999")
    assert parse_log("parse_log_immutable_js", "  ✓ a (1 ms)", "immutable-js__immutable-js-2006") == {"a": "PASSED"}


def test_instance_without_log_parser_or_with_bad_eval_type_cannot_be_graded():
    with pytest.raises(GradingError, match="no log_parser"):
        grade(SimpleNamespace(**make_row(None, ["a"], [])), marked("PASSED a"))
    with pytest.raises(GradingError, match="eval_type 'sometimes'"):
        grade(SimpleNamespace(**make_row("parse_log_pytest", ["a"], [], eval_type="sometimes")), marked("PASSED a"))


def test_runaway_log_is_refused_not_parsed():
    from clawmark.swe.parsers.base import MAX_LOG_CHARS

    with pytest.raises(LogParserError, match="exceeds"):
        parse_log("parse_log_gotest", "x" * (MAX_LOG_CHARS + 1))


def test_tests_status_lists_are_independent_objects():
    status = grade(SimpleNamespace(**GO_ROW), (LOGS / "gotest.log").read_text()).tests_status
    status["FAIL_TO_FAIL"]["success"].append("x")
    assert status["PASS_TO_FAIL"]["success"] == []
