"""What an audit reads, through the store's own filesystem: the same code scans a local folder
and a remote store (s3://, any fsspec URL), where a committed cell's artifacts live beside its row.

A file is named by (filesystem, path): the store's files by the store's filesystem, the extra
logs given on the command line (`--also`) by the local one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow.fs as pafs

from clawmark.results.store import CELLS_DIR, ROWS_DIR, SWEEPS_DIR

LOCAL = pafs.LocalFileSystem()
Source = tuple[pafs.FileSystem, str]


def cell_dir(store, sweep_id: str, cell_key: str) -> str:
    """Where a cell's artifacts are read from: its folder locally, its uploaded copy remotely."""
    if store.is_local:
        return str(store.layout(sweep_id, cell_key).dir)
    return store.remote_cell_dir(sweep_id, cell_key)


def sweep_sources(store, sweep_id: str, extra_paths=()) -> list[Source]:
    """Every artifact, row file and pinned-config file of the sweep, then the extra local logs."""
    cells = str(store.artifacts_root / sweep_id) if store.is_local else f"{store.root}/{CELLS_DIR}/{sweep_id}"
    roots = [cells, f"{store.root}/{ROWS_DIR}/{sweep_id}", f"{store.root}/{SWEEPS_DIR}/{sweep_id}"]
    stored = sorted({path for root in roots for path in files_under(store.fs, root)})
    extra = {path for root in extra_paths for path in files_under(LOCAL, str(Path(root).absolute()))}
    if store.is_local:
        extra -= set(stored)  # a log given with --also inside the store is scanned once
    return [(store.fs, path) for path in stored] + [(LOCAL, path) for path in sorted(extra)]


def has_sweep(store, sweep_id: str) -> bool:
    """Rows or artifacts of the sweep are in the store."""
    if store.completed_cells(sweep_id):
        return True
    cells = str(store.artifacts_root / sweep_id) if store.is_local else f"{store.root}/{CELLS_DIR}/{sweep_id}"
    return store.fs.get_file_info(cells).type == pafs.FileType.Directory


def files_under(fs: pafs.FileSystem, root: str) -> list[str]:
    """Files at or below `root` (a missing root has none). Locally symlinks are skipped, never
    followed: a claw may leave one pointing anywhere (object stores have none)."""
    if isinstance(fs, pafs.LocalFileSystem):
        path = Path(root)
        if path.is_symlink():
            return []
        if path.is_file():
            return [root]
        return sorted(str(p) for p in path.rglob("*") if p.is_file() and not p.is_symlink()) if path.is_dir() else []
    info = fs.get_file_info(root)
    if info.type == pafs.FileType.File:
        return [root]
    selector = pafs.FileSelector(root, recursive=True, allow_not_found=True)
    return sorted(i.path for i in fs.get_file_info(selector) if i.type == pafs.FileType.File)


def read_head(source: Source, max_bytes: int) -> bytes:
    fs, path = source
    with fs.open_input_stream(path) as stream:
        return stream.read(max_bytes)


def chunks(source: Source, size: int) -> Iterator[bytes]:
    fs, path = source
    with fs.open_input_stream(path) as stream:
        while chunk := stream.read(size):
            yield chunk
