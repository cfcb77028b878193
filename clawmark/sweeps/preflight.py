"""Disk preflight before each cell: Docker disk exhaustion is what users of the anchors hit most.

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
from pathlib import Path

from pydantic import BaseModel, Field

from clawmark.runtime.errors import RuntimeFailure


class DiskLow(RuntimeFailure):
    """Free disk stayed below the floor after pruning and waiting."""


class DiskPreflightConfig(BaseModel):
    floor_bytes: int = Field(5 * 2**30, ge=0, description="Least free space a cell may start with.")
    wait_s: float = Field(300.0, ge=0, description="How long a cell waits for space before DiskLow.")
    poll_s: float = Field(5.0, gt=0, description="How often it looks again while waiting.")

    @classmethod
    def from_env(cls) -> DiskPreflightConfig:
        return cls(floor_bytes=int(float(os.environ.get("CLAWMARK_DISK_FLOOR_GB", "5")) * 2**30),
                   wait_s=float(os.environ.get("CLAWMARK_DISK_WAIT_S", "300")))


def disk_preflight(artifacts_root: Path, config: DiskPreflightConfig | None = None,
                   cache=None) -> dict[str, int]:
    """Free bytes per watched path once all are above the floor; raises DiskLow past the wait."""
    from clawmark.runtime.image_cache import ImageCacheConfig

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
    from clawmark.runtime.image_cache import instance_images_bytes, prune_lru

    return prune_lru(cache, max(0, instance_images_bytes(cache) - needed_bytes))


def watched_paths(artifacts_root: Path) -> list[Path]:
    """The artifact folders' disk, and the engine's data root when it lives on this host."""
    paths = [_existing(Path(artifacts_root))]
    root = _docker_root()
    if root is not None and root.exists():
        paths.append(root)
    return paths


def _docker_root() -> Path | None:
    if os.environ.get("DOCKER_HOST", "unix://").split("://", 1)[0] not in ("unix", ""):
        return None  # a remote engine's disk is its own worker's to watch
    from clawmark.runtime.engine import shared_client

    return Path(shared_client().info().get("DockerRootDir", "/var/lib/docker"))


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path
