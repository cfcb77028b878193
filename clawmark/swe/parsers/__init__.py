"""Per-framework test-log parsers, addressed by their SWE-bench 5.x `log_parser` names.

Every name used by SWE-bench Verified and Multilingual (and the Claw-SWE-Bench 350 set) is
covered, plus swebench's other Python aliases, minitest, cucumber and jest-json; SWE-bench
Multimodal's JavaScript-only parsers are not. Each rule reproduces swebench's, because the
rows' FAIL_TO_PASS / PASS_TO_PASS names were produced by those exact rules.
"""

from __future__ import annotations

from clawmark.swe.parsers.base import LogParserError, StatusMap, TestStatus, UnknownLogParser
from clawmark.swe.parsers.registry import PARSERS, get_parser, known_parsers, parse_log

__all__ = ["PARSERS", "LogParserError", "StatusMap", "TestStatus", "UnknownLogParser",
           "get_parser", "known_parsers", "parse_log"]
