"""Credentials a task declares (its `.privacy` names) against what the user has: the process
environment and, when given, a local env file (`KEY=VALUE` lines, as upstream's
`configs/privacy.local.env`). Values are never returned or printed; only which names are
usable and why the others are not (missing, empty, a placeholder such as `YOUR_TOKEN`)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from clawmark.catalog.errors import CatalogError
from clawmark.catalog.task import SNAPSHOT_SWITCH  # not a credential: it selects the snapshot path

_PLACEHOLDER = re.compile(r"(?i)replace.?me|change.?me|\btodo\b|your_|\.\.\.|^<.*>$")
_GENERIC = {"password", "token", "secret", "api_key", "apikey", "xxx", "changeme", "you@outlook.com"}
_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$")


def credential_names(task) -> list[str]:
    """The task's `.privacy` names that are credentials (the snapshot switch is not one)."""
    return [name for name in task.privacy_vars if name != SNAPSHOT_SWITCH]


def read_env_file(path: Path) -> dict[str, str]:
    """`KEY=VALUE` lines (optional `export`, quotes stripped, `#` comments skipped)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(path, "<file>", f"a readable env file of KEY=VALUE lines ({exc.__class__.__name__})") from None
    values: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            raise CatalogError(path, "<line>", "KEY=VALUE (a shell-safe name, then '=')", number)
        value = match.group(2)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[match.group(1)] = value
    return values


def user_credentials(env_file: Path | None = None, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment, overlaid by the env file when one is named (the file wins, as a sweep's would)."""
    values = dict(os.environ if environ is None else environ)
    if env_file is not None:
        values.update(read_env_file(env_file))
    return values


def credential_gaps(names: list[str], available: Mapping[str, str]) -> dict[str, str]:
    """name -> why it is unusable ("missing", "empty", "placeholder"); names absent are usable."""
    gaps = {}
    for name in names:
        value = available.get(name)
        if value is None:
            gaps[name] = "missing"
        elif not value.strip():
            gaps[name] = "empty"
        elif value.strip().lower() in _GENERIC or _PLACEHOLDER.search(value.strip()):
            gaps[name] = "placeholder"
    return gaps


def executor_credentials(task, available: Mapping[str, str], snapshot: bool = False) -> tuple[dict[str, str], dict[str, str]]:
    """(what the executor's environment gets, name -> why unusable) for the task's `.privacy`
    names, as upstream's `resolve_privacy_env`: every credential, or a gap that makes the task
    unrunnable. In snapshot mode a task with an offline path needs none and gets none (only
    SNAPSHOT_MODE=1); a task that declares the switch gets it as 0 otherwise."""
    switch = SNAPSHOT_SWITCH in task.privacy_vars
    if snapshot and (switch or task.spec.task_snapshot):
        return ({SNAPSHOT_SWITCH: "1"} if switch else {}), {}
    names = credential_names(task)
    gaps = credential_gaps(names, available)
    values = {name: available[name] for name in names if name not in gaps}
    if switch:
        values[SNAPSHOT_SWITCH] = "0"
    return values, gaps
