"""Instance images on a worker: pulled when missing (unless offline), their last use recorded, and
the least recently used pruned once they pass a size budget.

Only images this worker used as *instance* images (pulled for a row, or derived per instance)
are ever pruned: each use touches a record under `<CLAWMARK_HOME>/image-use/`, and a record's
mtime is the image's last use. Recipe and base images, images a row names that the user brought
(never pulled here) and images any container (running or not) uses are never removed. Sizes
are the engine's (`Size`, shared layers counted in each image): the budget errs on the safe side.

Settings (environment, read per call): CLAWMARK_NO_PULL=1 (an offline worker: a missing image
stays `image_missing`), CLAWMARK_IMAGE_BUDGET_GB (no pruning when unset).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from pydantic import BaseModel, Field

from clawmark.runtime.engine import docker_client
from clawmark.runtime.errors import ImageMissing
from clawmark.settings import settings

PULL_TIMEOUT_S = 3600


class ImageCacheConfig(BaseModel):
    """How a worker gets and keeps instance images."""

    pull: bool = Field(True, description="Pull a missing registry image (False: offline, it stays image_missing).")
    budget_bytes: int | None = Field(None, ge=0, description="Size budget of instance images; None = no pruning.")
    use_dir: Path = Field(description="Where each instance image's last use is recorded (one file per image).")

    @classmethod
    def from_env(cls) -> ImageCacheConfig:
        conf = settings()
        budget = conf.image_budget_gb
        return cls(pull=not conf.no_pull, budget_bytes=int(budget * 2**30) if budget is not None else None,
                   use_dir=conf.home / "image-use")


class ImagePullFailed(ImageMissing):
    """The registry did not give the image (unreachable, unknown name, no access)."""


def pull_image(ref: str) -> None:
    """`docker pull ref` (tag `latest` when none is given), as swebench's harness does."""
    import docker  # heavy (Docker SDK): loaded on first engine use

    repository, tag = split_ref(ref)
    try:
        docker_client(timeout_s=PULL_TIMEOUT_S).images.pull(repository, tag=tag)
    except docker.errors.APIError as exc:
        raise ImagePullFailed(f"could not pull {ref}: {exc.explanation or exc}") from exc


def split_ref(ref: str) -> tuple[str, str]:
    """('host:5000/repo/name', 'tag'): a colon after the last slash starts the tag."""
    name, _, tag = ref.rpartition(":")
    if not name or "/" in tag:
        return ref, "latest"
    return name, tag


def record_use(ref: str, config: ImageCacheConfig, *, made_here: bool = False) -> None:
    """Mark `ref` used now. A first record is made only for an image this worker made its own
    (`made_here`: pulled or derived); an image the user brought is never recorded, so never pruned."""
    path = _record(ref, config)
    if path.exists():
        os.utime(path)
    elif made_here:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"ref": ref}))


def prune_to_budget(config: ImageCacheConfig, keep: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Remove least recently used instance images until they fit `budget_bytes`; removed refs."""
    if config.budget_bytes is None:
        return []
    return prune_lru(config, config.budget_bytes, keep)


def prune_lru(config: ImageCacheConfig, target_bytes: int, keep: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Remove recorded instance images, oldest use first, until their total size is at most
    `target_bytes`; never one in `keep`, used by a container, or built from a recipe."""
    import docker  # heavy (Docker SDK): loaded on first engine use

    client = docker_client()
    entries = _present_records(client, config)
    total = sum(size for *_, size in entries)
    in_use = {c.get("ImageID") for c in client.api.containers(all=True)}  # one call: no per-container inspect race
    removed = []
    for _used, ref, path, image, size in sorted(entries, key=lambda e: e[0]):
        if total <= target_bytes:
            break
        if ref in keep or image.id in in_use or image.labels.get("clawmark.kind") == "recipe":
            continue
        try:
            client.images.remove(ref)
        except docker.errors.APIError:  # a container started on it meanwhile, or it has children
            continue
        path.unlink(missing_ok=True)
        removed.append(ref)
        total -= size
    return removed


def instance_images_bytes(config: ImageCacheConfig) -> int:
    """Total size of the recorded instance images still present."""
    return sum(size for *_, size in _present_records(docker_client(), config))


def _present_records(client, config: ImageCacheConfig) -> list[tuple[float, str, Path, object, int]]:
    """(last use, ref, record, image, size) of every recorded image still present."""
    import docker  # heavy (Docker SDK): loaded on first engine use

    entries = []
    for path in config.use_dir.glob("*.json") if config.use_dir.is_dir() else []:
        try:
            ref, used = json.loads(path.read_text())["ref"], path.stat().st_mtime
        except (OSError, ValueError, KeyError):
            continue
        try:
            image = client.images.get(ref)
        except docker.errors.ImageNotFound:
            path.unlink(missing_ok=True)  # removed by someone else: nothing left to account for
            continue
        entries.append((used, ref, path, image, int(image.attrs.get("Size") or 0)))
    return entries


def _record(ref: str, config: ImageCacheConfig) -> Path:
    return config.use_dir / f"{hashlib.sha256(ref.encode()).hexdigest()[:24]}.json"

