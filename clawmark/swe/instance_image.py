"""Which image an instance runs in.

A row that names an `image` (a real SWE-bench row: a registry image) uses it as is; a worker
that lacks it pulls it, as swebench's harness does — unless the worker is offline
(CLAWMARK_NO_PULL=1), where a missing image stays a typed `image_missing`. Otherwise the image
is derived and content-hashed, and built here: the runtime image of the row's language, then the
row's `image_recipe` (a folder with a Dockerfile, when it has one), then the repository from
`repo_bundle` cloned into /testbed at the base commit. Pulled and derived instance images count
against the worker's image budget (clawmark/runtime/image_cache.py): the least recently used go
first.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from clawmark.runtime.image_cache import ImageCacheConfig, ImagePullFailed, prune_to_budget, pull_image, record_use
from clawmark.runtime.images import ensure_derived_image, ensure_image
from clawmark.swe.errors import InstanceImageMissing, InstanceUnbuildable

if TYPE_CHECKING:
    from clawmark.catalog.swe import SweInstance

LANGUAGE_IMAGES = {"python": "python", "javascript": "node", "typescript": "node", "node": "node",
                   "go": "go", "golang": "go", "rust": "rust"}
BUNDLE_NAME = "repo.bundle"
_REPO_LAYER = """ARG PARENT
FROM ${{PARENT}}
COPY {bundle} /tmp/{bundle}
RUN git clone -q --no-checkout /tmp/{bundle} /testbed \\
 && git -C /testbed -c advice.detachedHead=false checkout -q --detach {base} \\
 && rm /tmp/{bundle} \\
 && git config --system --replace-all safe.directory '*'
WORKDIR /testbed
"""


def instance_image(instance: SweInstance, progress=None, cache: ImageCacheConfig | None = None) -> str:
    """The image ref for `instance`: the row's image (pulled when absent and allowed) or the
    derived one (built when absent); recorded as used, then the image budget enforced."""
    cache = cache or ImageCacheConfig.from_env()
    if instance.image:
        ref, made_here = instance.image, _ensure_named(instance, cache, progress)
    else:
        ref, made_here = _derived_image(instance, progress), True
    record_use(ref, cache, made_here=made_here)
    prune_to_budget(cache, keep={ref})
    return ref


def _ensure_named(instance: SweInstance, cache: ImageCacheConfig, progress) -> bool:
    """Make the row's image present; True when it was pulled here (else it was already there)."""
    from clawmark.runtime.images import image_lock, image_present  # per call: tests stand in for image_present

    with image_lock(instance.image):  # parallel cells of one instance pull it once
        if image_present(instance.image):
            return False
        if not cache.pull:
            raise InstanceImageMissing(instance.instance_id, instance.image)
        if progress:
            progress(f"pulling {instance.image}")
        try:
            pull_image(instance.image)
        except ImagePullFailed as exc:  # still image_missing: the row's image is not here
            raise InstanceImageMissing(instance.instance_id, instance.image, str(exc)) from exc
    return True


def runtime_image_name(instance: SweInstance) -> str:
    """The clawmark runtime image an instance builds on (`runtime_image` extra, else its language)."""
    extras = getattr(instance, "model_extra", None) or {}
    name = extras.get("runtime_image") or LANGUAGE_IMAGES.get((instance.language or "").lower())
    if not name:
        raise InstanceUnbuildable(instance.instance_id, f"no image, and language {instance.language!r} "
                                  f"has no runtime image (known: {sorted(set(LANGUAGE_IMAGES))})")
    return name


def _derived_image(instance: SweInstance, progress) -> str:
    bundle = Path(instance.repo_bundle) if instance.repo_bundle else None
    if bundle is None or not bundle.is_file():
        raise InstanceUnbuildable(instance.instance_id, f"no image and no repo_bundle file (got {bundle})")
    parent = ensure_image(runtime_image_name(instance), progress)
    recipe = Path(instance.image_recipe) if instance.image_recipe else None
    if recipe is not None and (recipe / "Dockerfile").is_file():
        parent = ensure_derived_image(f"swe-env-{recipe.name}", parent, recipe,
                                      (recipe / "Dockerfile").read_text(), progress)
    with tempfile.TemporaryDirectory(prefix="clawmark-instance-") as context:
        _link_or_copy(bundle, Path(context) / BUNDLE_NAME)
        dockerfile = _REPO_LAYER.format(bundle=BUNDLE_NAME, base=_safe_commit(instance))
        return ensure_derived_image(f"swe-{instance.repo.replace('/', '__')}", parent, Path(context),
                                    dockerfile, progress)


def _safe_commit(instance: SweInstance) -> str:
    base = instance.base_commit
    if not base.isalnum():
        raise InstanceUnbuildable(instance.instance_id, f"base_commit must be a hex commit id (got {base!r})")
    return base


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
