"""An instance image with its repository already cut down to the base commit, built once per
(instance image, base commit) and started by every attempt of the instance.

Stripping history (`history_strip`: reset, drop refs and reflogs, gc, repack) is the same work
for every claw × model × seed of an instance, and on a real repository it takes seconds of git
gc; each attempt now only runs the leak check on what it starts from, so a stripped image that
still leaks (a base that descends from the fix) is refused exactly as before. The build is
Docker's own write-then-tag: a failed or killed strip never leaves a tag. A strip that cannot be
built (the base commit is missing, say) returns None and the attempt strips as it used to, with
the error it always gave. The image keeps the instance image's user and working directory.
"""

from __future__ import annotations

import json

from clawmark.runtime.errors import ImageBuildFailed
from clawmark.runtime.image_cache import ImageCacheConfig, record_use
from clawmark.runtime.images import ensure_derived_image
from clawmark.swe.history_strip import REPO_DIR, global_gitignore_command, strip_script


def stripped_image(instance_id: str, image, base_commit: str, progress=None) -> str | None:
    """The ref of the instance image `image` (the engine's image object) stripped to
    `base_commit`, built when missing, or None when the strip fails at build time (the caller
    then strips in the attempt's container)."""
    config = image.attrs.get("Config") or {}
    script = f"{global_gitignore_command()} && cd {REPO_DIR} && ( {strip_script(base_commit)} )"
    dockerfile = "\n".join([
        "ARG PARENT", "FROM ${PARENT}", "USER 0", f"RUN {json.dumps(['bash', '-c', script])}",
        f"USER {config.get('User') or '0'}", f"WORKDIR {config.get('WorkingDir') or '/'}", ""])
    try:  # keyed by the image id, not its tag: a re-pulled tag with new content re-keys
        ref = ensure_derived_image(f"stripped-{instance_id}", image.id, None, dockerfile, progress)
    except ImageBuildFailed:
        return None
    record_use(ref, ImageCacheConfig.from_env(), made_here=True)
    return ref
