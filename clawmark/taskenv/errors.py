"""Typed failures of a task container: infrastructure errors, never the claw's fault."""

from __future__ import annotations

from pathlib import Path

from clawmark.errors import Permanent
from clawmark.runtime.errors import RuntimeFailure


class TaskEnvError(RuntimeFailure):
    """The task container could not be made ready for the first executor turn."""


class ServiceFailed(TaskEnvError):
    """A service failed before the first turn: a oneshot exited non-zero or ran past its
    timeout, or a background one died or never listened on its port. `log` is where its
    output was saved (None when nothing could be read)."""

    def __init__(self, service: str, reason: str, log: Path | None = None) -> None:
        where = f" (log: {log})" if log else ""
        super().__init__(f"service {service!r} {reason}{where}")
        self.service, self.reason, self.log = service, reason, log


class PreExecFailed(TaskEnvError, Permanent):
    """A host-side pre_exec script exited non-zero, ran past its timeout, or could not start."""

    def __init__(self, script: str, reason: str, log: Path | None = None) -> None:
        where = f" (log: {log})" if log else ""
        super().__init__(f"pre_exec {script} {reason}{where}")
        self.script, self.reason, self.log = script, reason, log
