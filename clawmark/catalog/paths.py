"""Path safety for task packages: nothing declared or linked may lead outside the package, and a
package is a bounded tree of plainly named files (the runtime copies it without following links)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pydantic import BaseModel, Field

from clawmark.catalog.errors import CatalogError, PathEscapeError
from clawmark.settings import settings

_FOLDER_FIELDS = {"sources", "skills", "services", "references"}
_PER_ITEM = {"skills", "services"}  # each skill / service folder is copied on its own
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class PackageLimits(BaseModel):
    """Bounds of one task package (the largest real UniClawBench packages hold tens of MB)."""

    max_bytes: int = Field(2 * 1024**3, gt=0, description="Sum of file sizes (CLAWMARK_MAX_PACKAGE_MB).")
    max_files: int = Field(100_000, gt=0)
    max_depth: int = Field(32, gt=0, description="Folder levels below the package folder.")

    @classmethod
    def from_env(cls) -> "PackageLimits":
        megabytes = settings().max_package_mb
        return cls(max_bytes=int(megabytes * 1024**2)) if megabytes is not None else cls()


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


def check_package_tree(package: Path, file: Path, limits: PackageLimits | None = None) -> None:
    """One walk (links never followed): names, depth, size and where every symlink points."""
    limits = limits or PackageLimits.from_env()
    total_bytes = total_files = 0
    for folder, dirs, files in os.walk(package, followlinks=False):
        here = Path(folder)
        depth = len(here.relative_to(package).parts)
        if depth > limits.max_depth:
            raise CatalogError(file, _field(package, here), f"a package tree at most {limits.max_depth} "
                               f"folders deep (got {here.relative_to(package).as_posix()[:120]!r})")
        for name in dirs + files:
            entry = here / name
            _check_name(package, entry, file)
            if entry.is_symlink():
                _check_link(package, entry, file)
            elif name in files:
                total_files += 1
                total_bytes += entry.lstat().st_size
        if total_bytes > limits.max_bytes or total_files > limits.max_files:
            raise CatalogError(file, "<package>", f"a package of at most {limits.max_bytes} bytes and "
                               f"{limits.max_files} files (got over {total_bytes} bytes, {total_files} files)")


def _field(package: Path, entry: Path) -> str:
    parts = entry.relative_to(package).parts
    return parts[0] if parts and parts[0] in _FOLDER_FIELDS else (entry.relative_to(package).as_posix() or ".")


def _check_name(package: Path, entry: Path, file: Path) -> None:
    name = entry.name
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes come back as surrogates
        raise CatalogError(file, _field(package, entry.parent), "file names in UTF-8 (got "
                           f"{os.fsencode(name)!r} in {_safe(entry.parent.relative_to(package))})") from None
    if _CONTROL.search(name):
        raise CatalogError(file, _field(package, entry.parent), f"file names without control characters "
                           f"(got {name!r} in {_safe(entry.parent.relative_to(package))})")


def _safe(path: Path) -> str:
    return repr(os.fsencode(path.as_posix()).decode("utf-8", "backslashreplace")) if path.parts else "'.'"


def _check_link(package: Path, entry: Path, file: Path) -> None:
    """A link must stay in its own folder: sources/, skills/<name>/, services/<name>/, else the package."""
    relative = entry.relative_to(package)
    top = relative.parts[0]
    if len(relative.parts) == 1 and top in _FOLDER_FIELDS:
        raise PathEscapeError(file, top, f"a real {top}/ folder, not a symlink (-> {os.readlink(entry)})")
    fence = package / top if top in _FOLDER_FIELDS else package
    if top in _PER_ITEM and len(relative.parts) > 2:
        fence = package / top / relative.parts[1]
    if not entry.resolve().is_relative_to(fence):
        field = top if top in _FOLDER_FIELDS else relative.as_posix()
        inside = f"{fence.relative_to(package).as_posix()}/" if fence != package else "the package"
        raise PathEscapeError(file, field, f"symlinks that stay inside {inside} "
                              f"({relative.as_posix()} -> {os.readlink(entry)})")
