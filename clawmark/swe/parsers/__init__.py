"""Per-framework test-log parsers, addressed by their SWE-bench 5.x `log_parser` names."""

from __future__ import annotations

from clawmark.swe.parsers.base import LogParserError, StatusMap, TestStatus, UnknownLogParser
from clawmark.swe.parsers.registry import PARSERS, get_parser, known_parsers, parse_log

__all__ = ["PARSERS", "LogParserError", "StatusMap", "TestStatus", "UnknownLogParser",
           "get_parser", "known_parsers", "parse_log"]
