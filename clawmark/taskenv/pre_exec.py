"""Run a task's pre_exec scripts on the host, before the first turn.

Each script runs from the package folder with a scrubbed environment: a few harmless basics
(PATH, HOME, LANG, ...) plus exactly the variables the package's `.privacy` names, taken from
the runner's environment — no API keys or other runner secrets. A listed variable the runner
lacks is left unset (upstream scripts fall back, e.g. to snapshot fixtures) and named at the
top of the script's log. Snapshot mode sets SNAPSHOT_MODE=1, as upstream's runner does. Runs
of one task are serialised by a host file lock unless the task says `pre_exec_parallel_safe: true`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from contextlib import nullcontext
from pathlib import Path

from filelock import FileLock

from clawmark.taskenv.errors import PreExecFailed

BASIC_VARS = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "TERM", "USER", "LOGNAME", "SHELL")
SNAPSHOT_VAR = "SNAPSHOT_MODE"
LOCK_DIR = Path(tempfile.gettempdir()) / "clawmark-pre-exec-locks"


def run_pre_exec(task, logs_dir: Path, timeout_s: float, environ: Mapping[str, str] | None = None,
                 snapshot: bool = False) -> None:
    """Every pre_exec script in order; raises PreExecFailed (log saved) on the first failure."""
    if not task.pre_exec_scripts:
        return
    environ = os.environ if environ is None else environ
    env = pre_exec_env(task, environ, snapshot)
    missing = [name for name in task.privacy_vars if name not in env]
    lock = nullcontext() if task.spec.pre_exec_parallel_safe else task_lock(task.task_id)
    with lock:
        for script in task.pre_exec_scripts:
            _run_one(task, script, env, logs_dir, timeout_s, missing)


def pre_exec_env(task, environ: Mapping[str, str], snapshot: bool = False) -> dict[str, str]:
    """The basics plus those of the task's .privacy variables the runner has."""
    env = {name: environ[name] for name in BASIC_VARS if name in environ}
    env.setdefault("PATH", os.defpath)
    env.update({name: environ[name] for name in task.privacy_vars if name in environ})
    if snapshot:
        env[SNAPSHOT_VAR] = "1"
    env["CLAWBENCH_TASK_ID"] = task.task_id
    return env


def task_lock(task_id: str) -> FileLock:
    """Exclusive per-task lock across processes (and threads) on this host, waiting as long as it takes."""
    LOCK_DIR.mkdir(parents=True, exist_ok=True)
    return FileLock(LOCK_DIR / f"{task_id}.lock")


def interpreter(script: Path) -> list[str]:
    """How to run a script that may lack its exec bit (released packages are read-only)."""
    if script.suffix == ".py":
        return [sys.executable, str(script)]
    if script.suffix == ".sh" or not os.access(script, os.X_OK):
        return ["bash", str(script)]
    return [str(script)]


def _run_one(task, script: Path, env: dict[str, str], logs_dir: Path, timeout_s: float, missing: list[str]) -> None:
    rel = script.relative_to(task.package_dir).as_posix()
    log = logs_dir / "pre_exec" / (rel.replace("/", "__") + ".log")
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as out:
        if missing:
            out.write(f"[clawmark] .privacy names not set in the runner's environment: {', '.join(missing)}\n".encode())
            out.flush()
        try:
            proc = subprocess.run(interpreter(script), cwd=task.package_dir, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise PreExecFailed(rel, f"ran past its {timeout_s:g}s timeout and was killed", log) from None
        except OSError as exc:
            raise PreExecFailed(rel, f"could not start ({exc})", log) from None
    if proc.returncode != 0:
        raise PreExecFailed(rel, f"exited with code {proc.returncode}", log)
