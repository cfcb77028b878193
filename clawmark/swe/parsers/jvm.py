"""Java builds: maven (one `-Dtest=` run per test), ant junit, gradle with a result printer."""

from __future__ import annotations

import re

from clawmark.swe.parsers.base import StatusMap, TestStatus, lines, scan

_MAVEN_TEST = re.compile(r"^.*-Dtest=(\S+).*$")
_MAVEN_RESULT = re.compile(r"^.*BUILD (SUCCESS|FAILURE)$")
_MAVEN_OUTCOMES = {"SUCCESS": TestStatus.PASSED, "FAILURE": TestStatus.FAILED}
_ANT = re.compile(r"^\s*\[junit\]\s+\[(?P<outcome>PASS|FAIL|ERR)\]\s+(?P<name>.*)$")
_ANT_OUTCOMES = {"PASS": TestStatus.PASSED, "FAIL": TestStatus.FAILED, "ERR": TestStatus.FAILED}
_GRADLE_FULL = re.compile(r"^([^>].+)\s+(PASSED|FAILED)$")
_GRADLE_NAME = re.compile(r"^([^>]\S*\s+>\s+\S+)$")
_GRADLE_VERDICT = re.compile(r"^(PASSED|FAILED)$")
_GRADLE_OUTCOMES = {"PASSED": TestStatus.PASSED, "FAILED": TestStatus.FAILED}


def parse_maven(log: str) -> StatusMap:
    """`parse_log_maven`: maven prints no per-test lines, so each test runs alone and the
    `-Dtest=NAME` of the traced command (`set -x`) is paired, in order, with the next
    `BUILD SUCCESS|FAILURE`; results that come before any command pair up at the end."""
    found: StatusMap = {}
    waiting_tests: list[str] = []
    early_results: list[str] = []
    for line in (raw.strip() for raw in lines(log)):
        test = _MAVEN_TEST.match(line)
        if test:
            waiting_tests.append(test.group(1))
        result = _MAVEN_RESULT.match(line)
        if result and waiting_tests:
            found[waiting_tests.pop(0)] = _MAVEN_OUTCOMES[result.group(1)]
        elif result:
            early_results.append(result.group(1))
    for test, outcome in zip(waiting_tests, early_results):
        found[test] = _MAVEN_OUTCOMES[outcome]
    return found


def parse_ant(log: str) -> StatusMap:
    """`parse_log_ant`: `[junit] [PASS|FAIL|ERR] name`; ERR counts as FAILED."""
    return scan(log, _ANT, _ANT_OUTCOMES)


def parse_gradle_custom(log: str) -> StatusMap:
    """`parse_log_gradle_custom`: `Class > method PASSED|FAILED`, where interleaved output
    may put the verdict alone on a later line."""
    found: StatusMap = {}
    waiting: str | None = None
    for line in (raw.strip() for raw in lines(log)):
        full = _GRADLE_FULL.match(line)
        if full:
            found[full.group(1)] = _GRADLE_OUTCOMES[full.group(2)]
            waiting = None
            continue
        name = _GRADLE_NAME.match(line)
        if name:
            waiting = name.group(1)
            continue
        verdict = _GRADLE_VERDICT.match(line) if waiting else None
        if verdict:
            found[waiting] = _GRADLE_OUTCOMES[verdict.group(1)]
            waiting = None
    return found
