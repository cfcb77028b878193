"""SymPy's `bin/test --verbose`: `test_name ok|F|E` lines and `____ file.py:name ____` headers."""

from __future__ import annotations

import re

from clawmark.swe.parsers.base import StatusMap, TestStatus, lines

# SWE-bench's header pattern; loose enough to catch any ` x.py:y ` text, which it marks FAILED.
_FAILURE_HEADER = re.compile(r"(_*) (.*)\.py:(.*) (_*)")
_LINE_ENDINGS = ((" E", TestStatus.ERROR), (" F", TestStatus.FAILED), (" ok", TestStatus.PASSED))


def parse_sympy(log: str) -> StatusMap:
    """`parse_log_sympy`."""
    found: StatusMap = {f"{m[1]}.py:{m[2]}": TestStatus.FAILED for m in _FAILURE_HEADER.findall(log)}
    for line in (raw.strip() for raw in lines(log)):
        if not line.startswith("test_"):
            continue
        for ending, status in _LINE_ENDINGS:
            if line.endswith(ending):
                found[line.split()[0]] = status
    return found
