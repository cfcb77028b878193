"""Preflights: free disk before each cell, and tasks that must not be provisioned at all.

Disk: Docker disk exhaustion is what users of the anchors hit most.

Before a cell starts, the free space of the engine's data root (when the engine is on this host)
and of the artifact folders must be at least a floor. Below it, the least recently used instance
images are pruned first (clawmark/runtime/image_cache.py); if that is not enough, the cell waits
(other cells finishing free space too) and, past the wait, fails with `DiskLow` — an
infrastructure failure, so the cell is rerun later and never counted against the model.

Settings (environment): CLAWMARK_DISK_FLOOR_GB (default 5), CLAWMARK_DISK_WAIT_S (default 300).
"""

from __future__ import annotations

import os
import shutil
import time
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from clawmark.catalog.content import missing_content
from clawmark.catalog.task_credentials import executor_credentials, user_credentials
from clawmark.results.outcome import ClosedLoopOutcome
from clawmark.results.status import ErrorKind, Status
from clawmark.runtime.engine import shared_client
from clawmark.runtime.errors import RuntimeFailure
from clawmark.runtime.image_cache import ImageCacheConfig, instance_images_bytes, prune_lru
from clawmark.settings import settings


class DiskLow(RuntimeFailure):
    """Free disk stayed below the floor after pruning and waiting."""


class DiskPreflightConfig(BaseModel):
    floor_bytes: int = Field(5 * 2**30, ge=0, description="Least free space a cell may start with.")
    wait_s: float = Field(300.0, ge=0, description="How long a cell waits for space before DiskLow.")
    poll_s: float = Field(5.0, gt=0, description="How often it looks again while waiting.")

    @classmethod
    def from_env(cls) -> DiskPreflightConfig:
        conf = settings()
        return cls(floor_bytes=int(conf.disk_floor_gb * 2**30), wait_s=conf.disk_wait_s)


def disk_preflight(artifacts_root: Path, config: DiskPreflightConfig | None = None,
                   cache=None) -> dict[str, int]:
    """Free bytes per watched path once all are above the floor; raises DiskLow past the wait."""
    config = config or DiskPreflightConfig.from_env()
    paths = watched_paths(artifacts_root)
    deadline, pruned = time.monotonic() + config.wait_s, False
    while True:
        free = {str(p): shutil.disk_usage(p).free for p in paths}
        short = {p: f for p, f in free.items() if f < config.floor_bytes}
        if not short:
            return free
        if not pruned:  # images are the big consumer: give back the least recently used first
            _prune_for(config.floor_bytes - min(short.values()), cache or ImageCacheConfig.from_env())
            pruned = True
            continue
        if time.monotonic() >= deadline:
            raise DiskLow("; ".join(f"{p}: {f / 2**30:.1f} GiB free, below the {config.floor_bytes / 2**30:.1f} GiB floor"
                                    for p, f in short.items()) + f" (waited {config.wait_s:.0f} s after pruning "
                          "instance images; free space or lower CLAWMARK_DISK_FLOOR_GB)")
        time.sleep(config.poll_s)


def _prune_for(needed_bytes: int, cache) -> list[str]:
    return prune_lru(cache, max(0, instance_images_bytes(cache) - needed_bytes))


def watched_paths(artifacts_root: Path) -> list[Path]:
    """The artifact folders' disk, and the engine's data root when it lives on this host."""
    paths = [_existing(Path(artifacts_root))]
    root = _docker_root()
    if root is not None and root.exists():
        paths.append(root)
    return paths


def _docker_root() -> Path | None:
    host = os.environ.get("DOCKER_HOST", "unix://")
    if host.split("://", 1)[0] not in ("unix", ""):
        return None  # a remote engine's disk is its own worker's to watch
    return _engine_root(host)


@lru_cache(maxsize=8)
def _engine_root(docker_host: str) -> Path:
    """The engine's data root, asked once per engine address: `docker info` cost every cell ~20 ms."""
    return Path(shared_client().info().get("DockerRootDir", "/var/lib/docker"))


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def task_credentials(task, config) -> tuple[dict[str, str], dict[str, str]]:
    """(values for the executor's environment, name -> "missing" / "empty" / "placeholder") of a
    task's `.privacy` names under an attempt config (its env_file over this process's environment)."""
    return executor_credentials(task, user_credentials(config.env_file), config.snapshot)


def unrunnable_reason(task, config) -> tuple[str, str] | None:
    """(stop reason, message) of a task that must not be provisioned, or None: content missing
    (Git LFS pointers, an empty rubric, a declared source that is absent) or a credential it
    declares missing or a placeholder (upstream refuses to load such a task)."""
    if problems := missing_content(task):
        shown = "; ".join(f"{p.path}: {p.problem}" for p in problems[:5])
        more = f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""
        return "missing_content", (f"{len(problems)} file(s) of missing content: {shown}{more}; "
                                   f"fix: {problems[0].fix}")
    _values, gaps = task_credentials(task, config)
    if gaps:
        where = f"{config.env_file} or the environment" if config.env_file else "the environment (or an env file)"
        return "missing_credentials", ("credentials its .privacy declares are unusable: "
                                       + ", ".join(f"{name} ({why})" for name, why in sorted(gaps.items()))
                                       + f"; fix: set them in {where}")
    return None


def unrunnable_tasks(tasks, config) -> dict[str, str]:
    """task id -> why, for the tasks of a sweep that would be refused: said before it starts."""
    reasons = {task.task_id: unrunnable_reason(task, config) for task in tasks}
    return {task_id: message for task_id, (_, message) in ((t, r) for t, r in reasons.items() if r)}


def refuse_unrunnable(attempt) -> bool:
    """Before a closed-loop attempt provisions anything: a task `unrunnable_reason` refuses ends
    as `task_unrunnable`, an error row no denominator counts, naming the files or credential
    names (never a value) and the fix. True when refused."""
    reason = unrunnable_reason(attempt.task, attempt.config)
    if reason is None:
        return False
    stop, message = reason
    attempt.outcome = ClosedLoopOutcome(
        status=Status.TASK_UNRUNNABLE, error_kind=ErrorKind.UNRUNNABLE, stop_reason=stop,
        failure_reason=stop, threshold=attempt.threshold, error_message=f"refused before provisioning: {message}")
    attempt.layout.logs.mkdir(parents=True, exist_ok=True)
    if stop == "missing_content":
        (attempt.layout.logs / "missing-content.txt").write_text("".join(
            f"{p.path}\t{p.problem}\t{p.fix}\n" for p in missing_content(attempt.task)))
    return True
