"""Tar helpers for moving files in and out of containers byte-exactly, with size limits."""

from __future__ import annotations

import io
import tarfile
import time
import tempfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from clawmark.runtime.errors import ArchiveTooLarge

SPOOL_BYTES = 32 * 2**20


def pack_path(host_path: Path, owner: tuple[int, int] | None) -> tempfile.SpooledTemporaryFile:
    """A tar of `host_path` (file or folder) under its own name, owned by `owner` (uid, gid)."""
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
    with tarfile.open(fileobj=spool, mode="w") as tar:
        tar.add(str(host_path), arcname=host_path.name, filter=_owned_by(owner))
    spool.seek(0)
    return spool


def pack_bytes(name: str, data: bytes, mode: int, owner: tuple[int, int] | None) -> bytes:
    buffer = io.BytesIO()
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), mode, int(time.time())
    info.uid, info.gid = owner or (0, 0)
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def spool_chunks(chunks: Iterable[bytes], limit_bytes: int, what: str) -> tempfile.SpooledTemporaryFile:
    """Collect a streamed tar, refusing more than `limit_bytes`."""
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > limit_bytes:
            spool.close()
            raise ArchiveTooLarge(f"{what} exceeds the copy limit of {limit_bytes} bytes")
        spool.write(chunk)
    spool.seek(0)
    return spool


def extract_all(spool, host_dir: Path) -> None:
    """Unpack safely: the `data` filter refuses absolute paths, `..` and links out of `host_dir`."""
    host_dir.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=spool, mode="r") as tar:
        tar.extractall(host_dir, filter="data")


def single_file(spool, container_path: str) -> bytes:
    with tarfile.open(fileobj=spool, mode="r") as tar:
        member = tar.next()
        if member is None or not member.isfile():
            raise IsADirectoryError(f"{container_path} is not a regular file in the container")
        return tar.extractfile(member).read()


def parent_and_name(container_path: str) -> tuple[str, str]:
    path = PurePosixPath(container_path)
    if not path.is_absolute() or not path.name:
        raise ValueError(f"container path must be absolute and name a file: {container_path!r}")
    return str(path.parent), path.name


def _owned_by(owner: tuple[int, int] | None):
    def apply(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid, info.gid = owner or (0, 0)
        info.uname = info.gname = ""
        return info

    return apply


def pack_files(files: dict[str, Path], owner: tuple[int, int]) -> tempfile.SpooledTemporaryFile:
    """A tar of host files under the given relative names, with their parent folders.

    Modes are normalised so another user can read what is shipped: folders 0755, files 0644
    (0755 when any exec bit is set); `owner` (uid, gid) owns every entry.
    """
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
    folders: set[str] = set()
    with tarfile.open(fileobj=spool, mode="w") as tar:
        for name in sorted(files):
            for parent in reversed(PurePosixPath(name).parents[:-1]):
                if str(parent) not in folders:
                    folders.add(str(parent))
                    tar.addfile(_entry(str(parent), tarfile.DIRTYPE, 0o755, owner))
            host = files[name]
            mode = 0o755 if host.stat().st_mode & 0o111 else 0o644
            info = _entry(name, tarfile.REGTYPE, mode, owner)
            info.size = host.stat().st_size
            with open(host, "rb") as handle:
                tar.addfile(info, handle)
    spool.seek(0)
    return spool


def extract_skipping_unsafe(spool, host_dir: Path) -> list[str]:
    """Unpack what the `data` filter accepts; return the names it refused (absolute links,
    links out of `host_dir`, devices) instead of failing the whole copy on one of them."""
    host_dir.mkdir(parents=True, exist_ok=True)
    skipped: list[str] = []
    with tarfile.open(fileobj=spool, mode="r") as tar:
        for member in tar:
            try:
                tar.extract(member, host_dir, filter="data")
            except tarfile.FilterError:
                skipped.append(member.name)
    return skipped


def _entry(name: str, kind: bytes, mode: int, owner: tuple[int, int]) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.mtime = kind, mode, int(time.time())
    info.uid, info.gid = owner
    return info
