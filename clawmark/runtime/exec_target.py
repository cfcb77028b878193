"""The one seam of everything that runs commands somewhere: `ExecTarget`.

Its size is Inspect's `SandboxEnvironment` (exec, read_file, write_file): what a claw, the patch
steps (history strip, patch extraction, the apply chain) and an attempt's stages need of wherever
the work lives. A `Sandbox` (a container) is one as it is; `swe.shell.HostShell` runs the same
commands on the host under `bash -c` (tests, grading a local checkout); the task and instance
environments (`taskenv.TaskEnv`, `swe.environment.InstanceEnv`, the web proxy's wrapper) are one
through `ForwardsToSandbox`, onto the container they started. It lives here, on the floor under
every room that implements it (runtime, swe, taskenv, webproxy) or uses it (claws, attempts).

A non-zero exit is a result, never an error; `user` names who runs the command where the target
has users (a container), and a target without them refuses any other user than its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from clawmark.runtime.execution import ExecResult

if TYPE_CHECKING:  # a type only: sandbox.py loads the Docker SDK
    from clawmark.runtime.sandbox import Sandbox


@runtime_checkable
class ExecTarget(Protocol):
    def exec(self, cmd: str | list[str], timeout_s: float, workdir: str | None = None,
             env: dict[str, str] | None = None, user: str | None = None) -> ExecResult: ...

    def read_file(self, path: str) -> bytes: ...

    def write_file(self, path: str, data: bytes, mode: int = 0o644) -> None: ...


class NotStarted(RuntimeError):
    """An environment was asked to run a command before its container started (or after it stopped)."""


class ForwardsToSandbox:
    """An `ExecTarget` for an environment that owns a container: every call goes to `self.sandbox`,
    the container it started (None before the start and after the stop)."""

    sandbox: Sandbox | None

    def running(self) -> Sandbox:
        if self.sandbox is None:
            raise NotStarted(f"{type(self).__name__}: no container is running")
        return self.sandbox

    def exec(self, cmd: str | list[str], timeout_s: float, workdir: str | None = None,
             env: dict[str, str] | None = None, user: str | None = None) -> ExecResult:
        return self.running().exec(cmd, timeout_s=timeout_s, workdir=workdir, env=env, user=user)

    def read_file(self, path: str) -> bytes:
        return self.running().read_file(path)

    def write_file(self, path: str, data: bytes, mode: int = 0o644) -> None:
        self.running().write_file(path, data, mode)
