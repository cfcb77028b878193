"""Run a task's pre_exec scripts on the host, before the first turn.

Each script runs from the package folder with a scrubbed environment: a few harmless basics
(PATH, HOME, LANG, ...) plus exactly the variables the package's `.privacy` names, taken from
the runner's environment — no API keys or other runner secrets. Runs of one task are
serialised by an fcntl lock unless the task says `pre_exec_parallel_safe: true`.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, nullcontext
from pathlib import Path

from clawmark.taskenv.errors import PreExecFailed

BASIC_VARS = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "TERM", "USER", "LOGNAME", "SHELL")
LOCK_DIR = Path(tempfile.gettempdir()) / "clawmark-pre-exec-locks"


def run_pre_exec(task, logs_dir: Path, timeout_s: float, environ: Mapping[str, str] | None = None) -> None:
    """Every pre_exec script in order; raises PreExecFailed (log saved) on the first failure."""
    if not task.pre_exec_scripts:
        return
    env = pre_exec_env(task, os.environ if environ is None else environ)
    lock = nullcontext() if task.spec.pre_exec_parallel_safe else task_lock(task.task_id)
    with lock:
        for script in task.pre_exec_scripts:
            _run_one(task, script, env, logs_dir, timeout_s)


def pre_exec_env(task, environ: Mapping[str, str]) -> dict[str, str]:
    """The basics plus the task's .privacy variables; a missing one is a PreExecFailed."""
    missing = [name for name in task.privacy_vars if name not in environ]
    if missing:
        raise PreExecFailed(task.pre_exec_scripts[0].name, f"needs {', '.join(missing)} (listed in "
                            f"{task.package_dir / '.privacy'}) in the runner's environment")
    env = {name: environ[name] for name in BASIC_VARS if name in environ}
    env.setdefault("PATH", os.defpath)
    env.update({name: environ[name] for name in task.privacy_vars})
    env["CLAWBENCH_TASK_ID"] = task.task_id
    return env


@contextmanager
def task_lock(task_id: str) -> Iterator[None]:
    """Exclusive per-task lock across processes on this host."""
    LOCK_DIR.mkdir(parents=True, exist_ok=True)
    with open(LOCK_DIR / f"{task_id}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def interpreter(script: Path) -> list[str]:
    """How to run a script that may lack its exec bit (released packages are read-only)."""
    if script.suffix == ".py":
        return [sys.executable, str(script)]
    if script.suffix == ".sh" or not os.access(script, os.X_OK):
        return ["bash", str(script)]
    return [str(script)]


def _run_one(task, script: Path, env: dict[str, str], logs_dir: Path, timeout_s: float) -> None:
    rel = script.relative_to(task.package_dir).as_posix()
    log = logs_dir / "pre_exec" / (rel.replace("/", "__") + ".log")
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as out:
        try:
            proc = subprocess.run(interpreter(script), cwd=task.package_dir, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise PreExecFailed(rel, f"ran past its {timeout_s:g}s timeout and was killed", log) from None
        except OSError as exc:
            raise PreExecFailed(rel, f"could not start ({exc})", log) from None
    if proc.returncode != 0:
        raise PreExecFailed(rel, f"exited with code {proc.returncode}", log)
