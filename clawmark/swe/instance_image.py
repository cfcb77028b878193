"""Which image an instance runs in.

A row that names an `image` uses it as is and it must be present locally (real SWE-bench users
bring their own; we never pull). Otherwise the image is derived and content-hashed: the runtime
image of the row's language, then the row's `image_recipe` (a folder with a Dockerfile, when it
has one), then the repository from `repo_bundle` cloned into /testbed at the base commit.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from clawmark.swe.errors import InstanceImageMissing, InstanceUnbuildable

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


def instance_image(instance: Any, progress=None) -> str:
    """The image ref for `instance`, building the derived one when absent (never pulling)."""
    if instance.image:
        from clawmark.runtime.images import image_present

        if not image_present(instance.image):
            raise InstanceImageMissing(instance.instance_id, instance.image)
        return instance.image
    return _derived_image(instance, progress)


def runtime_image_name(instance: Any) -> str:
    """The clawmark runtime image an instance builds on (`runtime_image` extra, else its language)."""
    extras = getattr(instance, "model_extra", None) or {}
    name = extras.get("runtime_image") or LANGUAGE_IMAGES.get((instance.language or "").lower())
    if not name:
        raise InstanceUnbuildable(instance.instance_id, f"no image, and language {instance.language!r} "
                                  f"has no runtime image (known: {sorted(set(LANGUAGE_IMAGES))})")
    return name


def _derived_image(instance: Any, progress) -> str:
    from clawmark.runtime.images import ensure_derived_image, ensure_image

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


def _safe_commit(instance: Any) -> str:
    base = instance.base_commit
    if not base.isalnum():
        raise InstanceUnbuildable(instance.instance_id, f"base_commit must be a hex commit id (got {base!r})")
    return base


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
