"""Django's own runner (`runtests.py --verbosity 2`): `name (module.Class) ... ok`."""

from __future__ import annotations

import re

from clawmark.swe.parsers.base import StatusMap, TestStatus, lines

_PASS_SUFFIXES = (" ... ok", " ... OK", " ...  OK")
# django__django-7188 prints a migration line and the result on one line
_MIGRATION_PREFIX = "Applying sites.0002_alter_domain_unique...test_no_migrations"
# Output a test prints between its name and its verdict pushes `ok` onto the next line.
_INTERRUPTED_PASSES = [
    re.compile(r"^(.*?)\s\.\.\.\sTesting\ against\ Django\ installed\ in\ ((?s:.*?))\ silenced\)\.\nok$", re.M),
    re.compile(r"^(.*?)\s\.\.\.\sInternal\ Server\ Error:\ \/(.*)\/\nok$", re.M),
    re.compile(r"^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$", re.M),
]
_VERSION_TEST = "--version is equivalent to version"


def _passed_name(line: str) -> str | None:
    for suffix in _PASS_SUFFIXES:
        if line.endswith(suffix):
            if line.startswith(_MIGRATION_PREFIX):
                line = line.split("...", 1)[-1].strip()
            return line.rsplit(suffix, 1)[0]
    return None


def _verdicts(line: str) -> list[tuple[str, TestStatus]]:
    """Every (name, status) one stripped line states; later ones win, as in SWE-bench."""
    found: list[tuple[str, TestStatus]] = []
    passed = _passed_name(line)
    if passed is not None:
        found.append((passed, TestStatus.PASSED))
    if " ... skipped" in line:
        found.append((line.split(" ... skipped")[0], TestStatus.SKIPPED))
    if line.endswith(" ... FAIL"):
        found.append((line.split(" ... FAIL")[0], TestStatus.FAILED))
    if line.startswith("FAIL:") and len(line.split()) > 1:
        found.append((line.split()[1], TestStatus.FAILED))
    if line.endswith(" ... ERROR"):
        found.append((line.split(" ... ERROR")[0], TestStatus.ERROR))
    if line.startswith("ERROR:") and len(line.split()) > 1:
        found.append((line.split()[1], TestStatus.ERROR))
    return found


def parse_django(log: str) -> StatusMap:
    """`parse_log_django`. Quirk kept for parity: any line starting with `ok` marks the last
    named test PASSED, whatever that test's own line said."""
    found: StatusMap = {}
    last_named: str | None = None
    for line in (raw.strip() for raw in lines(log)):
        if _VERSION_TEST in line:
            found[_VERSION_TEST] = TestStatus.PASSED
        if " ... " in line:
            last_named = line.split(" ... ")[0]
        found.update(_verdicts(line))
        if line.startswith("ok") and last_named is not None:
            found[last_named] = TestStatus.PASSED
    for pattern in _INTERRUPTED_PASSES:
        for match in pattern.finditer(log):
            found[match.group(1)] = TestStatus.PASSED
    return found
