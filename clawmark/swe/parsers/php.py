"""PHPUnit `--testdox`: `Suite (Fully\\Qualified\\Class)` headers, then `✔ test` lines."""

from __future__ import annotations

import re

from clawmark.swe.parsers.base import StatusMap, TestStatus, lines

_SUITE = re.compile(r"^(\w.+) \(.+\)$")
_TEST = re.compile(r"^\s*([✔✘↩])\s*(.*)$")
_OUTCOMES = {"✔": TestStatus.PASSED, "✘": TestStatus.FAILED, "↩": TestStatus.SKIPPED}


def parse_phpunit(log: str) -> StatusMap:
    """`parse_log_phpunit`: names are `Suite > test`; a test before any header gets the
    suite `None`, as in SWE-bench."""
    found: StatusMap = {}
    suite: str | None = None
    for line in lines(log):
        header = _SUITE.match(line)
        if header:
            suite = header.group(1)
            continue
        test = _TEST.match(line)
        if test:
            found[f"{suite} > {test.group(2)}"] = _OUTCOMES[test.group(1)]
    return found
