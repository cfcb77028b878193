"""`go test -v`: `--- PASS: TestName (0.00s)` lines, subtests included."""

from __future__ import annotations

import re

from clawmark.swe.parsers.base import StatusMap, TestStatus, scan

_RESULT = re.compile(r"^--- (?P<outcome>PASS|FAIL|SKIP): (?P<name>.+) \((.+)\)$")
_OUTCOMES = {"PASS": TestStatus.PASSED, "FAIL": TestStatus.FAILED, "SKIP": TestStatus.SKIPPED}


def parse_gotest(log: str) -> StatusMap:
    """`parse_log_gotest`."""
    return scan(log, _RESULT, _OUTCOMES)
