"""Eval scripts for instances whose row carries none, shaped like SWE-bench Multilingual's.

Order: reset the test files to base (files the test patch creates are removed) -> apply
test_patch -> start marker -> test command -> end marker -> `clawmark:test_exit_code=N` ->
reset the test files again. The markers are printed by `set -x` tracing of `: '...'`, as in
the real rows; stderr is joined to stdout so the trace and the test output keep their order
however the runner captures them.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from typing import TYPE_CHECKING

from clawmark.swe.log_grading import END_MARKER, EXIT_CODE_LINE, START_MARKER
from clawmark.swe.patch_clean import split_sections

if TYPE_CHECKING:
    from clawmark.catalog.swe import SweInstance

TESTBED = "/testbed"
EXIT_CODE_VAR = "CLAWMARK_TEST_EXIT_CODE"
_HEADER_PATH = re.compile(r"^(?:---|\+\+\+) (?:[ab]/)?(.+?)(?:\t.*)?$")


class EvalScriptError(ValueError):
    """The instance has neither an eval_script nor a test_cmd to generate one from."""


def make_eval_script(instance: SweInstance) -> str:
    """The bash eval script for `instance` (a SweInstance or anything with its attributes)."""
    test_cmd = (getattr(instance, "test_cmd", None) or "").strip()
    if not test_cmd:
        raise EvalScriptError(f"instance {instance.instance_id}: no eval_script and no test_cmd to build one")
    base = instance.base_commit
    reset = _reset_command(base, *files_of_test_patch(instance.test_patch))
    delimiter = heredoc_delimiter(instance.test_patch)
    test_patch = instance.test_patch if instance.test_patch.endswith("\n") else instance.test_patch + "\n"
    lines = [
        "#!/bin/bash", "set -uxo pipefail", "exec 2>&1",
        f"cd {TESTBED}",
        f"git config --global --add safe.directory {TESTBED}",
        "git status", "git show",
        f"git -c core.fileMode=false diff {base}",
        reset,
        f"git apply -v - <<'{delimiter}'\n{test_patch}{delimiter}" if instance.test_patch.strip() else "",
        f": '{START_MARKER}'",
        f"({test_cmd}) | cat",
        f"{EXIT_CODE_VAR}=$?",
        f": '{END_MARKER}'",
        f'echo "{EXIT_CODE_LINE}=${EXIT_CODE_VAR}"',
        reset,
    ]
    return "\n".join(line for line in lines if line) + "\n"


def files_of_test_patch(test_patch: str) -> tuple[list[str], list[str]]:
    """(files the patch changes that exist at base, files it creates), read from the file
    headers only, never from hunk lines that happen to start with `---`."""
    existing: list[str] = []
    created: list[str] = []
    for old, new in _header_paths(test_patch):
        if old == "/dev/null":
            created.append(new)
        elif old not in existing:
            existing.append(old)
    return existing, [path for path in created if path not in existing]


def _header_paths(patch: str) -> list[tuple[str, str]]:
    """(old path, new path) of every file section (cut as the patch cleaner cuts them); `/dev/null`
    for a missing side."""
    pairs: list[tuple[str, str]] = []
    for section in split_sections(patch):
        old: str | None = None
        for line in section.header_lines():
            if line.startswith(("--- ", "+++ ")):
                match = _HEADER_PATH.match(line)
                path = match.group(1) if match else ""
                if line.startswith("--- "):
                    old = path
                elif old is not None:
                    pairs.append((old, path))
    return pairs


def heredoc_delimiter(content: str) -> str:
    """A heredoc end word that does not occur in `content`."""
    seed = content.encode()
    delimiter = "EOF_" + hashlib.blake2b(seed).hexdigest()[:12]
    while delimiter in content:
        seed += delimiter.encode()
        delimiter = "EOF_" + hashlib.blake2b(seed).hexdigest()[:12]
    return delimiter


def _reset_command(base_commit: str, existing: list[str], created: list[str]) -> str:
    """`git checkout BASE files && rm -f new_files`, as the Multilingual rows write it."""
    steps = []
    if existing:
        steps.append(f"git checkout {shlex.quote(base_commit)} " + " ".join(map(shlex.quote, existing)))
    if created:
        steps.append("rm -f " + " ".join(map(shlex.quote, created)))
    return " && ".join(steps)
