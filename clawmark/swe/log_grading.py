"""Grade one instance from its test log, by SWE-bench 5.x's rules.

Only the text between the start and end markers is parsed. A log that cannot be trusted gives
"no result" (a typed reason); the evaluator decides who caused it (clawmark.results.status).
Where we differ from swebench on purpose, the function says why.

Two readings of a log. Without a nonce (`clawmark swe grade` on a swebench log): swebench 5.0.2's
rules, fault markers anywhere, the first end marker closes the region. With the nonce of one of
clawmark's own evaluations (clawmark.swe.eval_region): only the region between the nonce
markers exists, fault markers count only inside it, and the exit code is the harness's line
right after the nonce end marker; nothing printed before the region or inside it can move it.
"""

from __future__ import annotations

import json
import re
from enum import Enum
from typing import Any, Callable, Iterable

from pydantic import BaseModel, field_serializer

from clawmark.results.status import Resolution
from clawmark.swe.parsers import LogParserError, StatusMap, TestStatus, parse_log

START_MARKER = ">>>>> Start Test Output"
END_MARKER = ">>>>> End Test Output"
APPLY_FAILED_MARKER = ">>>>> Patch Apply Failed"
RESET_FAILED_MARKER = ">>>>> Reset Failed"
TESTS_ERRORED_MARKER = ">>>>> Tests Errored"
TESTS_TIMED_OUT_MARKER = ">>>>> Tests Timed Out"
EXIT_CODE_LINE = "clawmark:test_exit_code"  # printed by our eval scripts after the end marker
SWEBENCH_EXIT_CODE_LINE = ">>>>> Test Exit Code"  # what swebench's harness prints instead

FAIL_TO_PASS, PASS_TO_PASS = "FAIL_TO_PASS", "PASS_TO_PASS"
FAIL_TO_FAIL, PASS_TO_FAIL = "FAIL_TO_FAIL", "PASS_TO_FAIL"

_CLAWMARK_EXIT = re.compile(rf"{re.escape(EXIT_CODE_LINE)}=(-?\d+)")
_SWEBENCH_EXIT = re.compile(rf"{re.escape(SWEBENCH_EXIT_CODE_LINE)}:\s*(-?\d+)")
# Evidence a runner executed even though it printed no per-test line (swebench's SUITE_RAN);
# every count must be non-zero, or a runner that died at start-up would look like a clean run.
_SUITE_RAN = re.compile(
    r"Executed [1-9]\d* of \d+|TOTAL: [1-9]\d* (?:SUCCESS|FAILED)|[1-9]\d* passing"
    r"|Tests:\s+[1-9]\d*|Test Suites:\s+(?:\d+ \w+, )*[1-9]\d* total|^# tests [1-9]\d*"
    r"|[1-9]\d* specs?, \d+ failures?|': ok$",
    re.M,
)
_PASSING = (TestStatus.PASSED, TestStatus.XFAIL)
_HARNESS_EXIT = re.compile(rf"\n{re.escape(EXIT_CODE_LINE)}=(-?\d+)\n")
# Lines only an eval script or the harness prints; inside a nonce region, the tests printed them.
_MARKER_TEXTS = (START_MARKER, END_MARKER, EXIT_CODE_LINE, SWEBENCH_EXIT_CODE_LINE)


class EvalType(str, Enum):
    PASS_AND_FAIL = "pass_and_fail"
    FAIL_ONLY = "fail_only"  # runners that print failures only: absent means passed


class NoResult(str, Enum):
    """Why a log gives no grade (infrastructure, or a log that contradicts its run)."""

    PATCH_APPLY_FAILED = "patch_apply_failed"
    RESET_FAILED = "reset_failed"
    TESTS_ERRORED = "tests_errored"
    TESTS_TIMED_OUT = "tests_timed_out"
    START_MARKER_MISSING = "start_marker_missing"
    END_MARKER_MISSING = "end_marker_missing"
    SUITE_DID_NOT_RUN = "suite_did_not_run"
    EXIT_CODE_CONTRADICTS_LOG = "exit_code_contradicts_log"


_FAULT_MARKERS = {
    APPLY_FAILED_MARKER: NoResult.PATCH_APPLY_FAILED,
    RESET_FAILED_MARKER: NoResult.RESET_FAILED,
    TESTS_ERRORED_MARKER: NoResult.TESTS_ERRORED,
    TESTS_TIMED_OUT_MARKER: NoResult.TESTS_TIMED_OUT,
}


class GradingError(LogParserError):
    """The instance cannot be graded at all (no log parser, bad eval_type, bad test lists)."""


def region_markers(nonce: str) -> tuple[str, str]:
    """(start, end) marker lines of one of clawmark's own evaluations."""
    return f"{START_MARKER} [{nonce}]", f"{END_MARKER} [{nonce}]"


class GradeResult(BaseModel):
    """One graded log. `resolution` and `tests_status` are None when there is no result."""

    resolved: bool
    resolution: Resolution | None
    tests_status: dict[str, dict[str, list[str]]] | None
    no_result_reason: NoResult | None
    parsed: dict[str, TestStatus]
    test_exit_code: int | None = None  # as the eval script (or, with a nonce, the harness) recorded it
    forged_markers: bool = False  # with a nonce: the test output printed marker or exit-code lines

    @field_serializer("resolution", when_used="json")
    def _swebench_spelling(self, resolution: Resolution | None) -> str | None:
        return None if resolution is None else resolution.swebench


def grade(instance: Any, log_text: str, *, nonce: str | None = None) -> GradeResult:
    """Grade `log_text` for `instance` (a SweInstance, or anything with its attributes); pass
    the evaluation's `nonce` for a log of clawmark's own evaluator."""
    parser_name = getattr(instance, "log_parser", None)
    if not parser_name:
        raise GradingError(f"instance {instance.instance_id}: no log_parser to read its test log with")
    eval_type = _eval_type(instance)
    parsed, reason = read_test_output(parser_name, log_text, instance.instance_id, nonce=nonce)
    exit_code = recorded_exit_code(log_text) if nonce is None else harness_exit_code(log_text, nonce)
    region, _ = marked_region(log_text, nonce) if nonce is not None else (None, None)
    forged = region is not None and any(mark in region for mark in _MARKER_TEXTS)
    if reason is not None:
        return GradeResult(resolved=False, resolution=None, tests_status=None, no_result_reason=reason,
                           parsed=parsed, test_exit_code=exit_code, forged_markers=forged)
    status = classify_tests(parsed, _test_list(instance, FAIL_TO_PASS), _test_list(instance, PASS_TO_PASS),
                          eval_type)
    resolution = resolution_of(status)
    return GradeResult(resolved=resolution is Resolution.FULL, resolution=resolution, tests_status=status,
                       no_result_reason=None, parsed=parsed, test_exit_code=exit_code, forged_markers=forged)


def read_test_output(parser_name: str, log_text: str, instance_id: str = "",
                     nonce: str | None = None) -> tuple[StatusMap, NoResult | None]:
    """The parsed results of the marked region, or the reason the log gives no result.

    Unlike swebench we never fall back to parsing the whole log when the region parses to
    nothing: text outside the markers (e.g. a patched setup step) must not count as results.
    """
    region, reason = marked_region(log_text, nonce)
    if region is None:
        return {}, reason
    parsed = parse_log(parser_name, region, instance_id)
    if not parsed and not _SUITE_RAN.search(region):
        return {}, NoResult.SUITE_DID_NOT_RUN
    exit_code = recorded_exit_code(log_text) if nonce is None else harness_exit_code(log_text, nonce)
    if _exit_code_contradicts(parsed, exit_code):
        return parsed, NoResult.EXIT_CODE_CONTRADICTS_LOG
    return parsed, None


def marked_region(log_text: str, nonce: str | None = None) -> tuple[str | None, NoResult | None]:
    """(the text between the markers, None) or (None, why there is no usable region)."""
    # swebench: fault markers anywhere, standard markers, the first end wins
    start, end = (START_MARKER, END_MARKER) if nonce is None else region_markers(nonce)
    if nonce is None and (fault := _fault_in(log_text)):
        return None, fault
    if start not in log_text:
        return None, NoResult.START_MARKER_MISSING
    after_start = log_text.split(start, 1)[1]
    if end not in after_start:
        return None, NoResult.END_MARKER_MISSING
    region = after_start.split(end, 1)[0]
    if nonce is not None and (fault := _fault_in(region)):
        return None, fault
    return region, None


def _fault_in(text: str) -> NoResult | None:
    return next((reason for marker, reason in _FAULT_MARKERS.items() if marker in text), None)


def harness_exit_code(log_text: str, nonce: str) -> int | None:
    """The exit code the harness wrote on the line right after the nonce end marker."""
    _, end = region_markers(nonce)
    if end not in log_text:
        return None
    match = _HARNESS_EXIT.match(log_text.split(end, 1)[1])
    return int(match.group(1)) if match else None


def recorded_exit_code(log_text: str) -> int | None:
    """The test command's exit status the eval script recorded, or None.

    Our `clawmark:test_exit_code=N` line wins over swebench's `>>>>> Test Exit Code: N`.
    The LAST occurrence counts (swebench takes the first): the script prints the real one
    after all test output, so a copy printed by the code under test cannot shadow it.
    """
    for pattern in (_CLAWMARK_EXIT, _SWEBENCH_EXIT):
        codes = pattern.findall(log_text)
        if codes:
            return int(codes[-1])
    return None


def _exit_code_contradicts(parsed: StatusMap, exit_code: int | None) -> bool:
    """A failing command whose log reports no failure did not produce that log: code under
    test can print its own PASSED lines."""
    if exit_code in (None, 0) or not parsed:
        return False
    return not any(status in (TestStatus.FAILED, TestStatus.ERROR) for status in parsed.values())


def classify_tests(parsed: StatusMap, fail_to_pass: Iterable[str], pass_to_pass: Iterable[str],
                 eval_type: EvalType = EvalType.PASS_AND_FAIL) -> dict[str, dict[str, list[str]]]:
    """SWE-bench's `tests_status`: success/failure lists per category (the *_TO_FAIL ones stay
    empty, as in swebench's default)."""
    if eval_type is EvalType.FAIL_ONLY:
        f2p = _split(fail_to_pass, lambda name: not _failed_exactly(name, parsed))
        p2p = _split(pass_to_pass, lambda name: not _failed_exactly(name, parsed))
    else:
        f2p = _split(fail_to_pass, lambda name: _status(name, parsed) in _PASSING)
        p2p = _split(pass_to_pass, lambda name: _status(name, parsed) in (*_PASSING, TestStatus.SKIPPED))
    return {FAIL_TO_PASS: f2p, PASS_TO_PASS: p2p, FAIL_TO_FAIL: _split([], bool), PASS_TO_FAIL: _split([], bool)}


def resolution_of(status: dict[str, dict[str, list[str]]]) -> Resolution:
    """FULL when every F2P and P2P test succeeds; PARTIAL when some but not all F2P do and
    every P2P does; NO otherwise. An empty list scores 1."""
    f2p, p2p = _score(status[FAIL_TO_PASS]), _score(status[PASS_TO_PASS])
    if f2p == 1 and p2p == 1:
        return Resolution.FULL
    if 0 < f2p < 1 and p2p == 1:
        return Resolution.PARTIAL
    return Resolution.NO


def _score(lists: dict[str, list[str]]) -> float:
    total = len(lists["success"]) + len(lists["failure"])
    return 1.0 if total == 0 else len(lists["success"]) / total


def _split(names: Iterable[str], succeeded: Callable[[str], bool]) -> dict[str, list[str]]:
    result: dict[str, list[str]] = {"success": [], "failure": []}
    for name in names:
        result["success" if succeeded(name) else "failure"].append(name)
    return result


def _failed_exactly(name: str, parsed: StatusMap) -> bool:
    return parsed.get(name) is TestStatus.FAILED


def _status(name: str, parsed: StatusMap) -> TestStatus | None:
    """The status of `name`; a truncated parametrised id (more `[` than `]`, a defect of
    676 Verified ids) takes the status of the ids it prefixes when they agree on pass/fail."""
    if name in parsed:
        return parsed[name]
    if name.count("[") <= name.count("]"):
        return None
    candidates = [key for key in parsed if key.startswith(name)]
    if candidates and len({parsed[key] in _PASSING for key in candidates}) == 1:
        return parsed[candidates[0]]
    return None


def _eval_type(instance: Any) -> EvalType:
    value = getattr(instance, "eval_type", None) or EvalType.PASS_AND_FAIL.value
    try:
        return EvalType(value)
    except ValueError:
        raise GradingError(f"instance {instance.instance_id}: eval_type {value!r} is not one of "
                           f"{[e.value for e in EvalType]}") from None


def _test_list(instance: Any, field: str) -> list[str]:
    """A SweInstance holds lists; a raw Verified row holds a JSON string."""
    value = getattr(instance, field, None) or []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise GradingError(f"instance {instance.instance_id}: {field} is not a JSON list") from None
    return list(value)
