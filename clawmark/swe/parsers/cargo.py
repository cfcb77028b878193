"""`cargo test`: `test path::name ... ok|FAILED` (ignored tests are not recorded)."""

from __future__ import annotations

import re

from clawmark.swe.parsers.base import StatusMap, TestStatus, scan

_RESULT = re.compile(r"^test\s+(?P<name>\S+)\s+\.\.\.\s+(?P<outcome>\w+)$")
_OUTCOMES = {"ok": TestStatus.PASSED, "FAILED": TestStatus.FAILED}


def parse_cargo(log: str) -> StatusMap:
    """`parse_log_cargo`."""
    return scan(log, _RESULT, _OUTCOMES)
