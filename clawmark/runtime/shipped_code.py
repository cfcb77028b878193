"""What a pool worker runs of a checkout (`SHIPPED`) and the digest that names that code.

Its own module, light on imports: the `cell` deployment's pull step computes the digest in a
fresh Prefect supervisor process for every cell run, and the worker image's build does too."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from clawmark.runtime.recipes import IGNORED_PARTS, tree_digest
from clawmark.settings import PROJECT_ROOT

SHIPPED = ("pyproject.toml", "README.md", "prefect.yaml", "clawmark", "flows", "blocks", "analysis", "tasks_catalog",
           "images", "scripts")


def code_digest(root: Path = PROJECT_ROOT) -> str:
    """sha256 (16 hex) over what a worker runs of the checkout at `root` (bytecode caches aside)."""
    digest = hashlib.sha256()
    for name in SHIPPED:
        path = root / name
        if path.is_dir():
            digest.update(f"{name}\0{tree_digest(path)}\0".encode())
        elif path.is_file():
            digest.update(f"{name}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\0".encode())
    return digest.hexdigest()[:16]


def copy_shipped(root: Path, dest: Path) -> None:
    """What a worker runs of the checkout at `root`, copied into the new folder `dest` (bytecode
    caches and build metadata left out): the worker image's code, or a test's other checkout."""
    ignore = shutil.ignore_patterns(*IGNORED_PARTS, "*.pyc", "*.egg-info")
    dest.mkdir()
    for name in SHIPPED:
        path = root / name
        if path.is_dir():
            shutil.copytree(path, dest / name, ignore=ignore, symlinks=True)
        elif path.is_file():
            shutil.copy2(path, dest / name)
