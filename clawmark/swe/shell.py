"""Shell steps of the patch track, and `HostShell`, the host's `ExecTarget`.

History stripping, patch extraction and the apply chain are shell command sequences run through
an `ExecTarget` (clawmark/runtime/exec_target.py: `exec`, `read_file` for outputs too big for an
exec's output cap, `write_file`). A `Sandbox` is one; `HostShell` runs the same commands on the
host with `bash -c`, which is how the unit tests exercise the real scripts against temporary git
repositories.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from clawmark.runtime.exec_target import ExecTarget
from clawmark.runtime.execution import ExecResult
from clawmark.stopwatch import Stopwatch
from clawmark.swe.errors import ShellStepFailed


@dataclass(frozen=True)
class HostShell:
    """Runs commands under `bash -c` on the host (tests, or grading a local checkout)."""

    root: Path
    env: dict[str, str] | None = None

    def exec(self, cmd: str | list[str], timeout_s: float, workdir: str | None = None,
             env: dict[str, str] | None = None, user: str | None = None) -> ExecResult:
        """`cmd` as a str runs under `bash -c`, as a list as it is; the host has one user: the
        caller's (any other `user` is refused, never silently ignored)."""
        if user is not None:
            raise ValueError(f"HostShell runs commands as the host's own user, not as {user!r}")
        argv = ["bash", "-c", cmd] if isinstance(cmd, str) else list(cmd)
        cwd = Path(workdir) if workdir else self.root
        environ = {**(self.env if self.env is not None else os.environ), **(env or {})} if env else self.env
        watch = Stopwatch()
        try:
            done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                                  errors="replace", timeout=timeout_s, env=environ)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
            return ExecResult(None, out, "", watch.elapsed(), timed_out=True, truncated=False)
        return ExecResult(done.returncode, done.stdout, done.stderr, watch.elapsed(), timed_out=False, truncated=False)

    def read_file(self, path: str) -> bytes:
        return Path(path).read_bytes()

    def write_file(self, path: str, data: bytes, mode: int = 0o644) -> None:
        Path(path).write_bytes(data)
        Path(path).chmod(mode)


def run_step(shell: ExecTarget, step: str, cmd: str, timeout_s: float, workdir: str | None = None) -> str:
    """Run one required step; any non-zero exit, timeout or truncated output raises."""
    result = shell.exec(cmd, timeout_s=timeout_s, workdir=workdir)
    if result.timed_out or result.exit_code != 0 or result.truncated:
        raise ShellStepFailed(step, result.exit_code, (result.stderr or result.stdout)[-2000:],
                              timed_out=result.timed_out, truncated=result.truncated)
    return result.stdout


def q(value: str) -> str:
    """Shell-quote one word (paths, commit ids)."""
    return shlex.quote(value)
