"""The one seam between the patch-task steps and wherever the repository lives.

History stripping, patch extraction and the apply chain are shell command sequences run through
`Shell.exec(cmd, timeout_s, workdir=None)` (+ `read_file(path)` for outputs too big for an exec's
output cap). A `clawmark.runtime.sandbox.Sandbox` satisfies it as is (same signatures); `HostShell` runs the same commands on the host with `bash -c`, which is how
the unit tests exercise the real scripts against temporary git repositories.
"""

from __future__ import annotations

import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from clawmark.stopwatch import Stopwatch
from clawmark.swe.errors import ShellStepFailed


class ExecResultLike(Protocol):
    exit_code: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool
    truncated: bool


class Shell(Protocol):
    def exec(self, cmd: str, timeout_s: float, workdir: str | None = None) -> ExecResultLike: ...

    def read_file(self, path: str) -> bytes: ...


@dataclass(frozen=True)
class HostResult:
    """Same fields as the sandbox's `ExecResult`, for commands run on the host."""

    exit_code: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    truncated: bool = False


@dataclass(frozen=True)
class HostShell:
    """Runs commands under `bash -c` on the host (tests, or grading a local checkout)."""

    root: Path
    env: dict[str, str] | None = None

    def exec(self, cmd: str, timeout_s: float, workdir: str | None = None) -> HostResult:
        cwd = Path(workdir) if workdir else self.root
        watch = Stopwatch()
        try:
            done = subprocess.run(["bash", "-c", cmd], cwd=cwd, capture_output=True, text=True,
                                  errors="replace", timeout=timeout_s, env=self.env)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
            return HostResult(None, out, "", watch.elapsed(), timed_out=True)
        return HostResult(done.returncode, done.stdout, done.stderr, watch.elapsed())

    def read_file(self, path: str) -> bytes:
        return Path(path).read_bytes()


def run_step(shell: Shell, step: str, cmd: str, timeout_s: float, workdir: str | None = None) -> str:
    """Run one required step; any non-zero exit, timeout or truncated output raises."""
    result = shell.exec(cmd, timeout_s=timeout_s, workdir=workdir)
    if result.timed_out or result.exit_code != 0 or result.truncated:
        raise ShellStepFailed(step, result.exit_code, (result.stderr or result.stdout)[-2000:],
                              timed_out=result.timed_out, truncated=result.truncated)
    return result.stdout


def q(value: str) -> str:
    """Shell-quote one word (paths, commit ids)."""
    return shlex.quote(value)
