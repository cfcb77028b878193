"""Image recipes: folders under `images/` and the content hashes that tag them.

A recipe folder holds a `Dockerfile` (parent passed as build-arg PARENT) or, for the root of
the tree, a `rootfs.sh` that writes a root filesystem tarball offline. An optional
`recipe.yaml` names the parent recipe and extra labels. The tag is a hash of every file in
the folder plus the parent's ref, so editing a recipe (or its parent) yields a new tag and an
unchanged recipe is never rebuilt.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import yaml
from pydantic import BaseModel, Field

from clawmark.runtime.errors import ImageMissing
from clawmark.settings import settings

REPOSITORY_PREFIX = "clawmark/"
ROOTFS_SCRIPT = "rootfs.sh"
IGNORED_PARTS = {"__pycache__", ".pytest_cache", ".git"}


class Recipe(BaseModel):
    """One folder under `images/`."""

    name: str = Field(description="Folder name; the image is clawmark/<name>:<hash12>.")
    folder: Path = Field(description="The recipe folder (also the build context).")
    parent: str | None = Field(default=None, description="Parent recipe name (recipe.yaml `parent`).")
    labels: dict[str, str] = Field(default_factory=dict, description="Extra image labels (recipe.yaml `labels`).")
    opt_in: bool = Field(False, description="Built only when named, never by `images build --all` "
                                            "(recipe.yaml `opt_in`: e.g. it needs what this machine lacks).")
    build_first: bool = Field(False, description="A long build, started before the others by `images build "
                              "--jobs N` so it does not finish last (recipe.yaml `build_first`).")

    @property
    def is_rootfs(self) -> bool:
        return (self.folder / ROOTFS_SCRIPT).is_file()

    @property
    def dockerfile(self) -> Path:
        return self.folder / "Dockerfile"


def images_dir() -> Path:
    """Recipe root: $CLAWMARK_IMAGES_DIR or the bundled `images/`."""
    return settings().images_dir


def discover(root: Path | None = None) -> dict[str, Recipe]:
    """Every recipe folder under `root` (default `images/`), by name."""
    root = root or images_dir()
    recipes = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        if (folder / "Dockerfile").is_file() or (folder / ROOTFS_SCRIPT).is_file():
            recipes[folder.name] = load_recipe(folder)
    return recipes


def load_recipe(folder: Path) -> Recipe:
    meta_path = folder / "recipe.yaml"
    meta = yaml.safe_load(meta_path.read_text()) if meta_path.is_file() else None
    meta = meta or {}
    if not isinstance(meta, dict):
        raise ImageMissing(f"{meta_path}: expected a mapping with `parent` and/or `labels`")
    labels = meta.get("labels") or {}
    if not isinstance(labels, dict):
        raise ImageMissing(f"{meta_path}: field `labels` must be a mapping of strings")
    for switch in ("opt_in", "build_first"):
        if not isinstance(meta.get(switch, False), bool):
            raise ImageMissing(f"{meta_path}: field `{switch}` must be true or false")
    return Recipe(name=folder.name, folder=folder, parent=meta.get("parent"),
                  labels={str(k): str(v) for k, v in labels.items()}, opt_in=meta.get("opt_in", False),
                  build_first=meta.get("build_first", False))


def build_order(names: list[str], recipes: dict[str, Recipe]) -> list[str]:
    """`names` with the long builds (`build_first`) first, each group in its given order. In plain
    alphabetical order the longest builds started last, and a fresh machine's build ended on them alone."""
    return sorted(names, key=lambda name: not recipes[name].build_first)


def get_recipe(name: str, recipes: dict[str, Recipe] | None = None) -> Recipe:
    """Recipe `name` from `recipes`, or straight from its folder (so one broken sibling
    recipe under images/ cannot stop everybody else's images)."""
    if recipes is None:
        folder = images_dir() / name
        if (folder / "Dockerfile").is_file() or (folder / ROOTFS_SCRIPT).is_file():
            return load_recipe(folder)
        recipes = discover()
    if name not in recipes:
        known = ", ".join(recipes) or "none"
        raise ImageMissing(f"no image recipe named {name!r} under {images_dir()} (known: {known})")
    return recipes[name]


def tree_digest(folder: Path | None, extra: str = "") -> str:
    """sha256 over relative paths, exec bits and contents of every file, plus `extra`."""
    digest = hashlib.sha256()
    for path in _files(folder):
        rel = path.relative_to(folder).as_posix()
        executable = "x" if path.stat().st_mode & 0o111 else "-"
        digest.update(f"{rel}\0{executable}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update(b"\0extra\0" + extra.encode())
    return digest.hexdigest()


def _files(folder: Path | None) -> list[Path]:
    if folder is None:
        return []
    return sorted(
        p for p in folder.rglob("*")
        if p.is_file() and not IGNORED_PARTS.intersection(p.relative_to(folder).parts)
    )


def repository(name: str) -> str:
    """A valid Docker repository for any name (instance ids carry uppercase and `/`)."""
    safe = re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("._-") or "image"
    return REPOSITORY_PREFIX + safe[:100]
