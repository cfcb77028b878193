"""Eval scripts for instances whose row carries none, shaped like SWE-bench Multilingual's.

Order: reset the test files to base -> apply test_patch -> start marker -> test command ->
end marker -> `clawmark:test_exit_code=N` -> reset the test files again. The markers are
printed by `set -x` tracing of `: '...'`, as in the real rows; stderr is joined to stdout so
the trace and the test output keep their order however the runner captures them.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from typing import Any

from clawmark.swe.grading import END_MARKER, EXIT_CODE_LINE, START_MARKER

TESTBED = "/testbed"
EXIT_CODE_VAR = "CLAWMARK_TEST_EXIT_CODE"
_OLD_FILE = re.compile(r"^--- (?:a/)?(.+?)(?:\t.*)?$")


class EvalScriptError(ValueError):
    """The instance lacks what a generated eval script needs (test_cmd, base_commit)."""


def make_eval_script(instance: Any) -> str:
    """The bash eval script for `instance` (a SweInstance or anything with its attributes)."""
    test_cmd = (getattr(instance, "test_cmd", None) or "").strip()
    if not test_cmd:
        raise EvalScriptError(f"instance {instance.instance_id}: no eval_script and no test_cmd to build one")
    base = instance.base_commit
    reset = _reset_command(base, patched_test_files(instance.test_patch))
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


def record_exit_code(eval_script: str) -> str:
    """A row's own eval script made to print `clawmark:test_exit_code=N` after its end marker
    (SWE-bench rows do not record the test command's status; swebench injects it the same
    way). Scripts without an end marker, or already recording, come back unchanged."""
    if EXIT_CODE_LINE in eval_script:
        return eval_script
    lines = eval_script.split("\n")
    for number, line in enumerate(lines):
        if END_MARKER in line:
            recorded = [f"{EXIT_CODE_VAR}=$?", line, f'echo "{EXIT_CODE_LINE}=${EXIT_CODE_VAR}"']
            return "\n".join([*lines[:number], *recorded, *lines[number + 1:]])
    return eval_script


def patched_test_files(test_patch: str) -> list[str]:
    """Files the patch changes that exist at base (new files have `--- /dev/null`), read
    from the file headers only, never from hunk lines that happen to start with `---`."""
    files: list[str] = []
    in_header = False
    for line in test_patch.split("\n"):
        if line.startswith("diff --git "):
            in_header = True
        elif line.startswith("@@"):
            in_header = False
        elif in_header and line.startswith("--- "):
            match = _OLD_FILE.match(line)
            if match and match.group(1) != "/dev/null" and match.group(1) not in files:
                files.append(match.group(1))
    return files


def heredoc_delimiter(content: str) -> str:
    """A heredoc end word that does not occur in `content`."""
    seed = content.encode()
    delimiter = "EOF_" + hashlib.blake2b(seed).hexdigest()[:12]
    while delimiter in content:
        seed += delimiter.encode()
        delimiter = "EOF_" + hashlib.blake2b(seed).hexdigest()[:12]
    return delimiter


def _reset_command(base_commit: str, files: list[str]) -> str:
    if not files:
        return ""
    return f"git checkout {shlex.quote(base_commit)} " + " ".join(shlex.quote(path) for path in files)
