"""Ruby runners: rspec JSON flattened by jq, test-unit, minitest, cucumber progress."""

from __future__ import annotations

import re

from clawmark.swe.parsers.base import StatusMap, TestStatus, scan

# Not anchored at the end and greedy: the last ` - passed|failed` on the line decides.
# `pending` never matches, so a pending example is simply absent.
_RSPEC = re.compile(r"(?P<name>.+) - (?P<outcome>passed|failed)")
_RSPEC_OUTCOMES = {"passed": TestStatus.PASSED, "failed": TestStatus.FAILED}
_RUBY_UNIT = re.compile(r"^\s*(?:test: )?(?P<name>.+):\s+(?P<outcome>\.|E\b|F\b|O\b)")
_RUBY_UNIT_OUTCOMES = {".": TestStatus.PASSED, "E": TestStatus.FAILED, "F": TestStatus.FAILED,
                       "O": TestStatus.SKIPPED}
_MINITEST = re.compile(r"^(?P<name>.+)\. .*=.*(?P<outcome>\.|F|E).*$")
_CUCUMBER = re.compile(r"^(?P<name>.*) \.+(?P<outcome>\.|F)")
_DOT_FE_OUTCOMES = {".": TestStatus.PASSED, "F": TestStatus.FAILED, "E": TestStatus.FAILED}


def parse_rspec_transformed_json(log: str) -> StatusMap:
    """`parse_log_rspec_transformed_json`: `description - id - status` lines."""
    return scan(log, _RSPEC, _RSPEC_OUTCOMES)


def parse_ruby_unit(log: str) -> StatusMap:
    """`parse_log_ruby_unit`: test-unit `-v`, `test_name: .` (O = omitted, i.e. skipped)."""
    return scan(log, _RUBY_UNIT, _RUBY_UNIT_OUTCOMES)


def parse_minitest(log: str) -> StatusMap:
    """`parse_log_minitest`: `Class#test_name = 0.01 s = .` (`-v`)."""
    return scan(log, _MINITEST, _DOT_FE_OUTCOMES)


def parse_cucumber(log: str) -> StatusMap:
    """`parse_log_cucumber` (`--format progress`)."""
    return scan(log, _CUCUMBER, _DOT_FE_OUTCOMES)
