"""Build clawmark images from recipes, only when missing, and keep the engine tidy.

`image_ref(name)` is pure (hashing files); `ensure_image(name)` builds parents first and then
the image, each only when its content-hash tag is absent; `ensure_derived_image` does the same
for images built on any parent at run time (per-instance images, claw layers). With a registry
set (`CLAWMARK_IMAGE_REGISTRY`) a missing image is pulled from it first (`image_registry.py`).
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel

from clawmark.runtime import docker_build, image_registry
from clawmark.runtime.engine import docker_client, shared_client
from clawmark.runtime.engine_lock import engine_lock
from clawmark.runtime.errors import ImageBuildFailed, ImageMissing
from clawmark.runtime.recipes import Recipe, discover, get_recipe, repository, tree_digest

Progress = Callable[[str], None]
MANAGED = {"clawmark.managed": "true"}
BUILD_TIMEOUT_S = 1800
IMAGE_LOCK_TIMEOUT_S = 2 * 3600  # a waiter outlasts the holder's build (30 min) or pull (60 min)


class ImageStatus(BaseModel):
    """One recipe as the engine sees it."""

    name: str
    ref: str
    present: bool
    size_bytes: int | None = None
    parent: str | None = None


def image_ref(name: str, recipes: dict[str, Recipe] | None = None, _seen: tuple[str, ...] = ()) -> str:
    """`clawmark/<name>:<hash12>` of a recipe: its files plus its parent's ref."""
    if name in _seen:
        raise ImageMissing(f"recipe parents form a cycle: {' -> '.join((*_seen, name))}")
    recipe = get_recipe(name, recipes)
    parent_ref = image_ref(recipe.parent, recipes, (*_seen, name)) if recipe.parent else ""
    return f"{repository(name)}:{tree_digest(recipe.folder, parent_ref)[:12]}"


def ensure_image(name: str, progress: Progress | None = None) -> str:
    """The ref of recipe `name`, building it (and its parents) only when absent."""
    ref = image_ref(name)  # validates the whole parent chain before building anything
    if _present_or_pulled(ref, progress):  # a parent is needed only to build
        return ref
    recipe = get_recipe(name)
    parent_ref = ensure_image(recipe.parent, progress) if recipe.parent else None
    labels = {**recipe.labels, "clawmark.recipe": name, "clawmark.kind": "recipe"}
    with image_lock(ref):
        if image_present(ref):
            return ref
        _say(progress, f"building {ref}")
        if recipe.is_rootfs:
            _import_rootfs(recipe, ref, labels, progress)
        else:
            dockerfile = recipe.dockerfile.read_text()
            docker_build.build(_build_client(), ref, recipe.folder, dockerfile, parent_ref, _labels(ref, labels, parent_ref), progress)
    return ref


def ensure_derived_image(name: str, parent_ref: str, context_dir: Path | None, dockerfile_text: str,
                         progress: Progress | None = None) -> str:
    """A content-hashed image of `dockerfile_text` over `context_dir`, built on `parent_ref`.

    The Dockerfile may use `ARG PARENT` / `FROM ${PARENT}` or name its base directly.
    """
    digest = tree_digest(Path(context_dir) if context_dir else None, f"{parent_ref}\0{dockerfile_text}")
    ref = f"{repository(name)}:{digest[:12]}"
    labels = _labels(ref, {"clawmark.recipe": name, "clawmark.kind": "derived"}, parent_ref)
    if _present_or_pulled(ref, progress):
        return ref
    with image_lock(ref):
        if not image_present(ref):
            _say(progress, f"building {ref} on {parent_ref}")
            docker_build.build(_build_client(), ref, context_dir, dockerfile_text, parent_ref, labels, progress)
    return ref


def _present_or_pulled(ref: str, progress: Progress | None) -> bool:
    if image_present(ref):
        return True
    if (where := image_registry.registry()) is None:
        return False
    with image_lock(ref):
        if image_present(ref):
            return True
        _say(progress, f"pulling {ref} from {where}")
        return image_registry.pulled(ref)


def image_present(ref: str) -> bool:
    import docker  # heavy (Docker SDK): loaded on first engine use

    try:
        shared_client().images.get(ref)
    except docker.errors.ImageNotFound:
        return False
    return True


def list_images() -> list[ImageStatus]:
    """Every recipe with its current ref, whether the engine has it, and its size."""
    import docker  # heavy (Docker SDK): loaded on first engine use

    client, recipes = docker_client(), discover()
    rows = []
    for name, recipe in recipes.items():
        ref = image_ref(name, recipes)
        try:
            size = client.images.get(ref).attrs.get("Size")
        except docker.errors.ImageNotFound:
            size = None
        rows.append(ImageStatus(name=name, ref=ref, present=size is not None, size_bytes=size, parent=recipe.parent))
    return rows


def prune_images(all_images: bool = False, dry_run: bool = False) -> tuple[list[str], list[str]]:
    """Remove clawmark-labelled images: stale ones, or every one with `all_images`.

    Kept (unless `all_images`): current recipe refs and derived images whose parent is kept.
    Returns (removed refs, one-line failures such as "image in use"); `dry_run` only lists.
    """
    import docker  # heavy (Docker SDK): loaded on first engine use

    client = docker_client()
    # The list endpoint's summaries, not `images.list()`, which inspects each image in turn and
    # raised ImageNotFound when another process removed one in between (a busy shared engine).
    images = [_Listed(summary) for summary in client.api.images(filters={"label": "clawmark.managed=true"})]
    keep = set() if all_images else _current_refs_and_descendants(images)
    removed, failed = [], []
    for image in images:
        for ref in [t for t in image.tags if t not in keep]:
            if dry_run:
                removed.append(ref)
                continue
            try:
                client.images.remove(ref, noprune=False)
                removed.append(ref)
            except docker.errors.APIError as exc:
                failed.append(f"{ref}: {exc.explanation or exc}")
    return removed, failed


class _Listed:
    """One image as the engine's list endpoint summarises it: its tags and labels."""

    def __init__(self, summary: dict) -> None:
        self.tags = [tag for tag in summary.get("RepoTags") or [] if tag != "<none>:<none>"]
        self.labels = summary.get("Labels") or {}


def _current_refs_and_descendants(images: list[_Listed]) -> set[str]:
    recipes = discover()
    keep = {image_ref(name, recipes) for name in recipes}
    grew = True
    while grew:
        grew = False
        for image in images:
            if image.labels.get("clawmark.parent") in keep and not keep.issuperset(image.tags):
                keep.update(image.tags)
                grew = True
    return keep


def _import_rootfs(recipe: Recipe, ref: str, labels: dict[str, str], progress: Progress | None) -> None:
    import docker  # heavy (Docker SDK): loaded on first engine use

    with tempfile.TemporaryDirectory(prefix="clawmark-rootfs-") as tmp:
        tarball = Path(tmp) / "rootfs.tar"
        _run_rootfs_script(recipe.folder / "rootfs.sh", tarball, progress)
        _say(progress, f"importing {tarball.stat().st_size // 2**20} MiB as {ref}")
        changes = [f'LABEL "{k}"="{v}"' for k, v in _labels(ref, labels, None).items()]
        changes += ["ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                    "ENV LANG=C.UTF-8", 'CMD ["bash"]']
        repo, tag = ref.rsplit(":", 1)
        try:
            _build_client().api.import_image(src=str(tarball), repository=repo, tag=tag, changes=changes)
        except docker.errors.APIError as exc:
            raise ImageBuildFailed(f"docker import of the {recipe.name} rootfs failed: {exc.explanation or exc}") from exc
    if not image_present(ref):
        raise ImageBuildFailed(f"docker import of {recipe.folder}/rootfs.sh output did not produce {ref}")


def _run_rootfs_script(script: Path, tarball: Path, progress: Progress | None) -> None:
    proc = subprocess.Popen(["bash", str(script), str(tarball)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace")
    tail: list[str] = []
    for line in proc.stdout:
        tail = (tail + [line.rstrip()])[-30:]
        _say(progress, line.rstrip())
    if proc.wait(timeout=BUILD_TIMEOUT_S) != 0 or not tarball.is_file():
        raise ImageBuildFailed(f"{script} failed (exit {proc.returncode}):\n" + "\n".join(tail))


def _labels(ref: str, labels: dict[str, str], parent_ref: str | None) -> dict[str, str]:
    extra = {"clawmark.parent": parent_ref} if parent_ref else {}
    return {**labels, **MANAGED, "clawmark.hash": ref.rsplit(":", 1)[1], **extra}


def _build_client():
    # Builds stream for minutes with silent stretches: a long read timeout, not the default 60 s.
    return docker_client(timeout_s=BUILD_TIMEOUT_S)


@contextmanager
def image_lock(ref: str, client=None) -> Iterator[None]:
    """Serialize builds (and pulls) of one ref on one engine across threads, processes and pool
    workers of this host: parallel cells ask for the same image, and each would build it."""
    with engine_lock(f"image-{ref}", client, timeout_s=IMAGE_LOCK_TIMEOUT_S):
        yield


def _say(progress: Progress | None, line: str) -> None:
    if progress and line:
        progress(line)
