"""A result store from one string, as users and deployment parameters name it.

A local folder, a pyarrow filesystem URI (`s3://bucket/x?endpoint_override=…`, `gs://…`,
`hdfs://…`, `file:///…`) or any fsspec URL (`memory://…`, `sftp://…`, `az://…` with its
fsspec package installed). On a remote store rows, the pinned config, leases and compaction
live on the remote filesystem; a cell's artifact folder is staged on the worker's local disk
while the attempt runs and uploaded at commit, just before its row (the commit point), so a
committed cell's artifacts are always complete remotely.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs

from clawmark.results.store import ResultStore
from clawmark.settings import settings


def is_url(location: str | os.PathLike[str]) -> bool:
    return "://" in os.fspath(location)


def open_store(location: str | os.PathLike[str], *, staging: str | Path | None = None,
               fsync: bool = True) -> ResultStore:
    """The store at `location`; a remote one stages artifacts under `staging` (default
    `$CLAWMARK_HOME/staging/<hash of the URL>`)."""
    text = os.fspath(location)
    if not is_url(text):
        return ResultStore(text, fsync=fsync)
    filesystem, path = _filesystem(text)
    store = ResultStore(path, filesystem=filesystem, artifacts_root=Path(staging or _staging_for(text)), fsync=fsync)
    store.location = text
    return store


def _filesystem(url: str) -> tuple[pafs.FileSystem, str]:
    """pyarrow's own filesystems first (native S3/GCS/HDFS clients), fsspec's for the rest."""
    try:
        return pafs.FileSystem.from_uri(url)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
        import fsspec  # only for URLs pyarrow cannot open

        try:
            fs, path = fsspec.core.url_to_fs(url)
        except (ImportError, ValueError) as exc:
            raise ValueError(f"result store {url}: no pyarrow or fsspec filesystem for it ({exc})") from None
        return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path.rstrip("/") or "/"


def _staging_for(url: str) -> Path:
    return settings().home / "staging" / hashlib.sha256(url.encode()).hexdigest()[:12] / "cells"
