"""What every log parser returns: test name -> TestStatus, with SWE-bench's status words."""

from __future__ import annotations

import difflib
import re
from enum import Enum
from typing import Callable

MAX_LOG_CHARS = 64 * 1024 * 1024  # a test log beyond this is a runaway process, not a result


class TestStatus(str, Enum):
    """The status words SWE-bench 5.x parsers emit; values equal its `TestStatus`."""

    __test__ = False  # not a pytest test class

    PASSED = "PASSED"
    FAILED = "FAILED"
    SKIPPED = "SKIPPED"
    ERROR = "ERROR"
    XFAIL = "XFAIL"


StatusMap = dict[str, TestStatus]
LogParser = Callable[[str], StatusMap]

STATUS_WORDS: dict[str, TestStatus] = {status.value: status for status in TestStatus}


class LogParserError(Exception):
    """A log cannot be parsed with the parser the instance names."""


class UnknownLogParser(LogParserError):
    """The instance names a `log_parser` clawmark does not implement."""

    def __init__(self, name: str, known: list[str]):
        self.name = name
        close = difflib.get_close_matches(name, known, n=3)
        hint = f"did you mean {', '.join(close)}?" if close else f"expected one of {len(known)} SWE-bench names"
        super().__init__(f"unknown log_parser {name!r} ({hint})")


def lines(log: str) -> list[str]:
    """The log split on newlines only, like SWE-bench (a stray '\\r' stays in the line)."""
    return log.split("\n")


def scan(log: str, pattern: re.Pattern[str], outcomes: dict[str, TestStatus]) -> StatusMap:
    """Parse one-line results: `pattern` (matched on the stripped line) yields (outcome, name)
    in its groups `outcome` and `name`; outcomes not in `outcomes` are ignored."""
    found: StatusMap = {}
    for line in lines(log):
        match = pattern.match(line.strip())
        if match and match.group("outcome") in outcomes:
            found[match.group("name")] = outcomes[match.group("outcome")]
    return found
