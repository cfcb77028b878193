"""JavaScript runners SWE-bench Multilingual uses: jest, vitest, mocha TAP, karma."""

from __future__ import annotations

import re
from typing import Iterator

from clawmark.swe.parsers.base import StatusMap, TestStatus, lines, scan

_JEST = re.compile(r"^\s*(?P<outcome>✓|✕|○)\s(?P<name>.+?)(?:\s\((\d+\s*m?s)\))?$")
_JEST_OUTCOMES = {"✓": TestStatus.PASSED, "✕": TestStatus.FAILED, "○": TestStatus.SKIPPED}
_JEST_JSON = re.compile(r"^\[(?P<outcome>PASSED|FAILED)\]\s(?P<name>.+)$")
_JEST_JSON_OUTCOMES = {"PASSED": TestStatus.PASSED, "FAILED": TestStatus.FAILED}
# Quirk kept for parity: the optional duration also takes a bare trailing number, so
# `✓ handles case 2` is recorded as `handles case`.
_VITEST = re.compile(r"^\s*(?P<outcome>✓|×|↓)\s(?P<name>.+?)(?:\s(\d+\s*m?s?|\[skipped\]))?$")
_VITEST_OUTCOMES = {"✓": TestStatus.PASSED, "×": TestStatus.FAILED, "↓": TestStatus.SKIPPED}
_TAP = re.compile(r"^(?P<outcome>ok|not ok) (\d+) (?P<name>.+)$")
_TAP_OUTCOMES = {"ok": TestStatus.PASSED, "not ok": TestStatus.FAILED}
_KARMA_LINE = re.compile(r"^(\s*)?([✔✖])?\s(.*)$")


def parse_jest(log: str) -> StatusMap:
    """`parse_log_jest` (`--verbose`)."""
    return scan(log, _JEST, _JEST_OUTCOMES)


def parse_jest_json(log: str) -> StatusMap:
    """`parse_log_jest_json`: `--json` piped through jq into `[STATUS] suite > test`."""
    return scan(log, _JEST_JSON, _JEST_JSON_OUTCOMES)


def parse_vitest(log: str) -> StatusMap:
    """`parse_log_vitest` (`--reporter=verbose`)."""
    return scan(log, _VITEST, _VITEST_OUTCOMES)


def parse_tap(log: str) -> StatusMap:
    """`parse_log_tap`: `ok 3 name` / `not ok 4 name`."""
    return scan(log, _TAP, _TAP_OUTCOMES)


class _DescribeBlocks:
    """karma's describe nesting as SWE-bench tracks it. Quirks kept for parity: a sibling
    block at the same indent does not replace the previous one, and a shallower block only
    pops one level (and is not entered)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.indent = -1

    def header(self, indent: int, name: str) -> bool:
        """Track a block header line; False when SWE-bench skips the rest of the line."""
        if indent > self.indent:
            self.indent = indent
            self.names.append(name)
        elif indent < self.indent:
            self.indent = indent
            if self.names:
                self.names.pop()
            return False
        return True


def _karma_report_lines(log: str) -> Iterator[str]:
    """Lines after `Starting browser`, up to `SUMMARY:` (which ends the per-test report)."""
    started = False
    for line in lines(log):
        if line.startswith("SUMMARY:"):
            return
        if "Starting browser" in line:
            started = True
        elif started:
            yield line


def parse_karma(log: str) -> StatusMap:
    """`parse_log_karma`: `✔`/`✖` tests named by their enclosing describe blocks."""
    found: StatusMap = {}
    blocks = _DescribeBlocks()
    for line in _karma_report_lines(log):
        match = _KARMA_LINE.match(line)
        if not match:
            continue
        indent, mark, name = match.groups()
        if indent and not mark and not blocks.header(len(indent), name):
            continue
        if mark:
            found[" > ".join([*blocks.names, name])] = TestStatus.PASSED if mark == "✔" else TestStatus.FAILED
    return found
