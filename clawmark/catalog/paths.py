"""Path safety for task packages: nothing declared or linked may lead outside the package."""

from __future__ import annotations

import os
from pathlib import Path

from clawmark.catalog.errors import CatalogError, PathEscapeError

_FOLDER_FIELDS = {"sources", "skills", "services", "references"}


def resolve_inside(package: Path, declared: str, file: Path, field: str, base: Path | None = None) -> Path:
    """`base/declared` resolved (symlinks followed); PathEscapeError unless it stays in `package`."""
    if not isinstance(declared, str) or not declared.strip():
        raise CatalogError(file, field, "a non-empty relative path")
    if Path(declared).is_absolute() or declared.startswith("~"):
        raise PathEscapeError(file, field, f"a relative path inside the task package (got {declared!r})")
    resolved = ((base or package) / declared).resolve()
    if not resolved.is_relative_to(package):
        raise PathEscapeError(file, field, f"a path inside the task package (got {declared!r})")
    return resolved


def require_exists(path: Path, file: Path, field: str, kind: str = "file or folder") -> Path:
    ok = path.is_file() if kind == "file" else path.is_dir() if kind == "folder" else path.exists()
    if not ok:
        raise CatalogError(file, field, f"an existing {kind} at {path}")
    return path


def check_links_stay_inside(package: Path, file: Path) -> None:
    """Every symlink anywhere in the package must point inside it (sources/ is copied whole)."""
    for folder, dirs, files in os.walk(package, followlinks=False):
        for name in dirs + files:
            entry = Path(folder) / name
            if entry.is_symlink() and not entry.resolve().is_relative_to(package):
                top = entry.relative_to(package).parts[0]
                field = top if top in _FOLDER_FIELDS else str(entry.relative_to(package))
                raise PathEscapeError(file, field, f"symlinks that stay inside the package "
                                      f"({entry.relative_to(package)} -> {os.readlink(entry)})")
