"""C and C++ suites: redis/valkey TCL runner, jq's `make check`, googletest via ctest,
doctest XML, micropython's run-tests."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

from clawmark.swe.parsers.base import StatusMap, TestStatus, lines, scan

_REDIS = re.compile(r"^\[(ok|err|skip|ignore)\]:\s(.+?)(?:\s\((\d+\s*m?s)\))?$")
_REDIS_OUTCOMES = {"ok": TestStatus.PASSED, "err": TestStatus.FAILED,
                   "skip": TestStatus.SKIPPED, "ignore": TestStatus.SKIPPED}
_REDIS_FAILURE_LOCATION = re.compile(r"\s+in\s+\S+$")
_JQ = re.compile(r"^\s*(?P<outcome>PASS|FAIL):\s(?P<name>.+)$")
_JQ_OUTCOMES = {"PASS": TestStatus.PASSED, "FAIL": TestStatus.FAILED}
_MICROPYTHON = re.compile(r"^(?P<outcome>pass|FAIL|skip)\s+(?P<name>.+)$")
_MICROPYTHON_OUTCOMES = {"pass": TestStatus.PASSED, "FAIL": TestStatus.FAILED, "skip": TestStatus.SKIPPED}
_GOOGLETEST = re.compile(r"^.*\[\s*(?P<outcome>OK|FAILED)\s*\]\s(?P<name>.*)\s\(.*\)$")
_GOOGLETEST_OUTCOMES = {"OK": TestStatus.PASSED, "FAILED": TestStatus.FAILED}


def parse_redis(log: str) -> StatusMap:
    """`parse_log_redis`: `[ok]: name (3 ms)`; a failure's ` in file` suffix is dropped."""
    found: StatusMap = {}
    for line in lines(log):
        match = _REDIS.match(line.strip())
        if not match:
            continue
        outcome, name = match.group(1), match.group(2)
        if outcome == "err":
            name = _REDIS_FAILURE_LOCATION.sub("", name)
        found[name] = _REDIS_OUTCOMES[outcome]
    return found


def parse_jq(log: str) -> StatusMap:
    """`parse_log_jq`: automake's `PASS: tests/name`."""
    return scan(log, _JQ, _JQ_OUTCOMES)


def parse_micropython_test(log: str) -> StatusMap:
    """`parse_log_micropython_test`: `pass  basics/file.py`."""
    return scan(log, _MICROPYTHON, _MICROPYTHON_OUTCOMES)


def parse_googletest(log: str) -> StatusMap:
    """`parse_log_googletest`: `[       OK ] Suite.Test (0 ms)`."""
    return scan(log, _GOOGLETEST, _GOOGLETEST_OUTCOMES)


def parse_doctest(log: str) -> StatusMap:
    """`parse_log_doctest` (`-s -r=xml`): one `TestCase > SubCase` per subcase, passed when
    every expression in it succeeded. Unreadable XML parses to nothing (SWE-bench raises)."""
    start = log.find("<doctest")
    end = log.find("</doctest>", start)
    if start == -1 or end == -1:
        return {}
    try:
        root = ElementTree.fromstring(log[start:end + len("</doctest>")])
    except ElementTree.ParseError:
        return {}
    found: StatusMap = {}
    for case in root.iter("TestCase"):
        for subcase in case.iter("SubCase"):
            passed = all(e.get("success") == "true" for e in subcase.iter("Expression"))
            found[f"{case.get('name')} > {subcase.get('name')}"] = (
                TestStatus.PASSED if passed else TestStatus.FAILED)
    return found
