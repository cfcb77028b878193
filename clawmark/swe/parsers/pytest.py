"""pytest `-rA` summaries and the per-repo variants SWE-bench Verified names.

Each rule mirrors SWE-bench 5.x because the FAIL_TO_PASS / PASS_TO_PASS names in the rows
were produced by these exact rules (including their quirks, noted where they bite).
"""

from __future__ import annotations

import re
from typing import Callable

from clawmark.swe.parsers.base import STATUS_WORDS, StatusMap, lines

_SKIP_SUMMARY_COUNT = re.compile(r"^\[\d+\]$")  # `SKIPPED [2] file:line: reason` is not a test
_PARAMETER = re.compile(r"([^\[]*)\[(.*)\]")
_COLOUR_CODE = re.compile(r"\[(\d+)m")
_CONTROL_CHARS = str.maketrans("", "", "".join(chr(code) for code in range(1, 32)))


def _starts_with_status(line: str) -> bool:
    return any(line.startswith(word) for word in STATUS_WORDS)


def _summary_entry(line: str) -> tuple[str, str] | None:
    """(status word, test id) of a `STATUS id [- message]` line, SWE-bench's v1 reading:
    for FAILED every ' - ' becomes a space, so the id ends at the first ' - '."""
    if not _starts_with_status(line):
        return None
    if line.startswith("FAILED"):
        line = line.replace(" - ", " ")
    words = line.split()
    if len(words) <= 1 or words[0] not in STATUS_WORDS:
        return None
    if words[0] == "SKIPPED" and _SKIP_SUMMARY_COUNT.match(words[1]):
        return None
    return words[0], words[1]


def _parse_summary(log: str, rename: Callable[[str], str] = str) -> StatusMap:
    found: StatusMap = {}
    for line in lines(log):
        entry = _summary_entry(line)
        if entry:
            found[rename(entry[1])] = STATUS_WORDS[entry[0]]
    return found


def parse_pytest(log: str) -> StatusMap:
    """`parse_log_pytest`: the short test summary (`pytest -rA`)."""
    return _parse_summary(log)


def _shorten_path_parameter(test_id: str) -> str:
    """`test[/abs/dir/file]` -> `test[/file]`: rows keep only the last path part of a
    single-slash absolute parameter (pydicom, requests, pylint)."""
    match = _PARAMETER.match(test_id)
    if not match:
        return test_id
    name, option = match.groups()
    if option.startswith("/") and not option.startswith("//") and "*" not in option:
        option = "/" + option.split("/")[-1]
    return f"{name}[{option}]"


def parse_pytest_options(log: str) -> StatusMap:
    """`parse_log_pytest_options`: the summary with path parameters shortened (per line, so
    when two ids shorten alike the later line wins, as in SWE-bench)."""
    return _parse_summary(log, _shorten_path_parameter)


def parse_matplotlib(log: str) -> StatusMap:
    """`parse_log_matplotlib`: the summary with mouse-button enums printed as numbers."""
    log = log.replace("MouseButton.LEFT", "1").replace("MouseButton.RIGHT", "3")
    return parse_pytest(log)


def _clean_v2(line: str) -> str:
    return _COLOUR_CODE.sub("", line).translate(_CONTROL_CHARS)


def parse_pytest_v2(log: str) -> StatusMap:
    """`parse_log_pytest_v2` (astropy, scikit-learn, sphinx): colour codes and control
    characters removed; the id runs to the end of the line (for FAILED: to the first
    ' - '); old pytest's `id STATUS` lines count too."""
    found: StatusMap = {}
    for line in map(_clean_v2, lines(log)):
        if _starts_with_status(line):
            if line.startswith("FAILED"):
                line = line.split(" - ", 1)[0]
            words = line.split()
            if len(words) >= 2 and words[0] in STATUS_WORDS and not (
                    words[0] == "SKIPPED" and _SKIP_SUMMARY_COUNT.match(words[1])):
                found[" ".join(words[1:])] = STATUS_WORDS[words[0]]
        elif any(line.endswith(word) for word in STATUS_WORDS):
            words = line.split()
            if len(words) >= 2 and words[-1] in STATUS_WORDS:
                found[" ".join(words[:-1])] = STATUS_WORDS[words[-1]]
    return found


def parse_seaborn(log: str) -> StatusMap:
    """`parse_log_seaborn`: FAILED and PASSED only, in `STATUS id` or `id PASSED ...` form."""
    found: StatusMap = {}
    for line in lines(log):
        words = line.split()
        if len(words) < 2:
            continue
        if line.startswith("FAILED"):
            found[words[1]] = STATUS_WORDS["FAILED"]
        elif " PASSED " in line:
            if words[1] == "PASSED":
                found[words[0]] = STATUS_WORDS["PASSED"]
        elif line.startswith("PASSED"):
            found[words[1]] = STATUS_WORDS["PASSED"]
    return found
