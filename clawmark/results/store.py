"""`ResultStore`: one Parquet file per cell, written atomically, read back with one schema.

```
<root>/rows/<sweep_id>/<cell_key>.parquet    the committed row of a cell (commit point)
<root>/cells/<sweep_id>/<cell_key>/          its artifact folder (`AttemptLayout`)
<root>/rows/<sweep_id>/_compacted.parquet    rows of a finished sweep folded into one file
<root>/sweeps/<sweep_id>/config.json         the sweep's pinned resolved config
```
Writing the same cell again replaces its file, so a resume or a forced rerun never duplicates a
row. Writers publish through a hidden temp file + rename; readers list only visible
`*.parquet` names, so a crash mid-write leaves a stray `.tmp` that nobody reads. `root` may be
a local path or any URI `pyarrow.fs.FileSystem.from_uri` understands (s3://, gs://, ...); on
object stores a single PUT is already atomic. A remote store stages artifact folders on local
disk and uploads a cell's folder at commit, just before its row (`location.open_store` builds a
store from any URL, fsspec ones included).
"""

from __future__ import annotations

import io
import os
import shutil
import time
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from clawmark.results.compaction import compact_sweep, import_rows
from clawmark.results.errors import BadFile, CorruptResults
from clawmark import failpoint
from clawmark.fsio import atomic_write_bytes
from clawmark.results.layout import AttemptLayout, check_name, last_touched
from clawmark.results.pinning import pin_config
from clawmark.results.row import AttemptRow
from clawmark.results.schema import RESULTS_SCHEMA, from_record, to_frame, to_table
from clawmark.results.store_files import and_filters, filter_expression, scan, scan_tolerant

if TYPE_CHECKING:
    import pandas as pd

    from clawmark.results.identity import ConfigLike

ROWS_DIR, CELLS_DIR, SWEEPS_DIR = "rows", "cells", "sweeps"
SUFFIX, COMPACTED = ".parquet", "_compacted.parquet"
# Compression, dictionaries and statistics buy nothing for one row and cost decode time:
# measured 2x faster full reads (3.7 vs 7.7 ms/file) and 35 % smaller files without them.
SINGLE_ROW_OPTIONS: dict[str, Any] = {"compression": "none", "use_dictionary": False, "write_statistics": False}


@dataclass
class ReadResult:
    """Rows that read, plus every file that did not (never silently dropped)."""

    frame: pd.DataFrame
    bad_files: list[BadFile] = field(default_factory=list)
    files_read: int = 0


class ResultStore:
    """Rows and artifact folders of every sweep under one root."""

    def __init__(self, root: str | os.PathLike[str], *, artifacts_root: str | Path | None = None,
                 fsync: bool = True, filesystem: pafs.FileSystem | None = None) -> None:
        """`root`: a local folder or a URI; `filesystem`: any pyarrow filesystem (wrap an fsspec
        one with `pafs.PyFileSystem(pafs.FSSpecHandler(fs))`), `root` then being a path in it."""
        text = os.fspath(root)
        self.is_local = filesystem is None and "://" not in text
        if self.is_local:
            self.fs: pafs.FileSystem = pafs.LocalFileSystem()
            self.root = str(Path(text).expanduser().resolve())
        elif filesystem is not None:
            self.fs, self.root = filesystem, text.rstrip("/")
        else:
            self.fs, self.root = pafs.FileSystem.from_uri(text)
        if artifacts_root is None and not self.is_local:
            raise ValueError(f"store {text}: a remote store needs a local artifacts_root")
        self.artifacts_root = Path(artifacts_root or Path(self.root) / CELLS_DIR)
        self.fsync = fsync
        self.location = text if not self.is_local else self.root  # what another process opens it by
        self._key_cache: dict[str, tuple[tuple, frozenset[str]]] = {}

    # -- paths ---------------------------------------------------------------------------
    def _sweep_dir(self, sweep_id: str) -> str:
        return f"{self.root}/{ROWS_DIR}/{check_name('sweep_id', sweep_id)}"

    def row_path(self, sweep_id: str, cell_key: str) -> str:
        return f"{self._sweep_dir(sweep_id)}/{check_name('cell_key', cell_key)}{SUFFIX}"

    def sweep_config_path(self, sweep_id: str) -> str:
        return f"{self.root}/{SWEEPS_DIR}/{check_name('sweep_id', sweep_id)}/config.json"

    def layout(self, sweep_id: str, cell_key: str) -> AttemptLayout:
        return AttemptLayout(self.artifacts_root, sweep_id, cell_key)

    # -- write ---------------------------------------------------------------------------
    def write(self, row: AttemptRow) -> str:
        """Commit one row (replacing any earlier row of the same cell); return its path."""
        layout = self.layout(row.sweep_id, row.cell_key)
        if layout.dir.is_dir():
            atomic_write_bytes(layout.row_json, row.model_dump_json(indent=2).encode(), fsync=self.fsync)
            if not self.is_local:
                self.upload_artifacts(layout)
        sink = io.BytesIO()
        pq.write_table(to_table([row]), sink, **SINGLE_ROW_OPTIONS)
        path = self.row_path(row.sweep_id, row.cell_key)
        failpoint.reach("row-commit")  # CLAWMARK_FAILPOINT: the kill-safe resume test dies here
        self.publish(path, sink.getvalue())
        return path

    def remote_cell_dir(self, sweep_id: str, cell_key: str) -> str:
        return f"{self.root}/{CELLS_DIR}/{check_name('sweep_id', sweep_id)}/{check_name('cell_key', cell_key)}"

    def upload_artifacts(self, layout: AttemptLayout) -> None:
        """Copy a staged artifact folder to the remote store (replacing an earlier upload)."""
        target = self.remote_cell_dir(layout.sweep_id, layout.cell_key)
        self.fs.delete_dir_contents(target, missing_dir_ok=True)
        self.fs.create_dir(target, recursive=True)
        pafs.copy_files(str(layout.dir), target, source_filesystem=pafs.LocalFileSystem(),
                        destination_filesystem=self.fs)

    def publish(self, path: str, data: bytes) -> None:
        """All-or-nothing file write: temp + rename locally, one PUT on object stores."""
        if self.is_local:
            atomic_write_bytes(Path(path), data, fsync=self.fsync)
            return
        self.fs.create_dir(path.rsplit("/", 1)[0], recursive=True)  # no-op on object stores
        with self.fs.open_output_stream(path) as out:
            out.write(data)

    # -- listing -------------------------------------------------------------------------
    def sweeps(self) -> list[str]:
        infos = self.fs.get_file_info(pafs.FileSelector(f"{self.root}/{ROWS_DIR}", allow_not_found=True))
        return sorted(i.base_name for i in infos if i.type == pafs.FileType.Directory)

    def _sweep_files(self, sweep_id: str) -> list[pafs.FileInfo]:
        selector = pafs.FileSelector(self._sweep_dir(sweep_id), allow_not_found=True)
        return [i for i in self.fs.get_file_info(selector) if i.type == pafs.FileType.File]

    def cell_files(self, sweep_id: str) -> list[pafs.FileInfo]:
        """Per-cell row files of a sweep (temp files and the compacted file excluded)."""
        return sorted((i for i in self._sweep_files(sweep_id) if _is_row_file(i)), key=lambda i: i.path)

    def row_mtimes(self, sweep_id: str) -> dict[str, int]:
        """cell key -> mtime_ns of its per-cell row file (one listing)."""
        return {_cell_of(info): info.mtime_ns for info in self.cell_files(sweep_id)}

    def compacted_path(self, sweep_id: str) -> str:
        return f"{self._sweep_dir(sweep_id)}/{COMPACTED}"

    def compacted_mtime(self, sweep_id: str) -> int | None:
        """mtime_ns of the sweep's compacted file; None when there is none."""
        info = self._compacted_info(sweep_id)
        return info.mtime_ns if info is not None else None

    def _compacted_info(self, sweep_id: str) -> pafs.FileInfo | None:
        info = self.fs.get_file_info(self.compacted_path(sweep_id))
        return info if info.type == pafs.FileType.File else None

    def compacted_keys(self, sweep_id: str) -> frozenset[str]:
        """Cell keys held by the sweep's compacted file (cached until the file changes)."""
        info = self._compacted_info(sweep_id)
        if info is None:
            return frozenset()
        stamp = (info.path, info.mtime_ns, info.size)
        if (cached := self._key_cache.get(sweep_id)) and cached[0] == stamp:
            return cached[1]
        try:
            column = pq.read_table(info.path, columns=["cell_key"], filesystem=self.fs)["cell_key"]
        except (pa.ArrowException, OSError) as exc:  # unknown is not "absent": say which file
            raise CorruptResults([BadFile(info.path, f"{type(exc).__name__}: {exc}"[:300])]) from exc
        keys = frozenset(column.to_pylist())
        self._key_cache[sweep_id] = (stamp, keys)
        return keys

    def completed_cells(self, sweep_id: str) -> set[str]:
        return {_cell_of(i) for i in self.cell_files(sweep_id)} | self.compacted_keys(sweep_id)

    def has(self, sweep_id: str, cell_key: str) -> bool:
        if self.fs.get_file_info(self.row_path(sweep_id, cell_key)).type == pafs.FileType.File:
            return True
        return cell_key in self.compacted_keys(sweep_id)

    # -- read ----------------------------------------------------------------------------
    def read(self, sweep_id: str | Iterable[str] | None = None, *,
             where: Mapping[str, Any] | None = None, columns: list[str] | None = None) -> pd.DataFrame:
        """All rows as a pandas DataFrame with the full schema; unreadable files are warned about
        by name (use `read_report` to get them as data)."""
        result = self.read_report(sweep_id, where=where, columns=columns)
        if result.bad_files:
            warnings.warn(str(CorruptResults(result.bad_files)), stacklevel=2)
        return result.frame

    def read_report(self, sweep_id: str | Iterable[str] | None = None, *,
                    where: Mapping[str, Any] | None = None, columns: list[str] | None = None) -> ReadResult:
        table, bad, files = self.read_table(sweep_id, where=where, columns=columns)
        return ReadResult(to_frame(table), bad, files - len(bad))

    def read_table(self, sweep_id: str | Iterable[str] | None = None, *,
                   where: Mapping[str, Any] | None = None, columns: list[str] | None = None):
        """(Arrow table, bad files, files tried). A cell's own file wins over its compacted row."""
        sweeps = self.sweeps() if sweep_id is None else [sweep_id] if isinstance(sweep_id, str) else list(sweep_id)
        if unknown := sorted(set(columns or ()) - set(RESULTS_SCHEMA.names)):
            raise KeyError(f"unknown result columns {unknown}")  # else every file would look corrupt
        expr, plain, shadowed = filter_expression(where), [], []
        for sweep in sweeps:
            cells = self.cell_files(sweep)
            plain += [i.path for i in cells]
            if packed := self._compacted_info(sweep):
                if cells:  # rows of re-run cells in the compacted file are hidden by their own files
                    shadowed.append((packed.path, ~pc.field("cell_key").isin([_cell_of(i) for i in cells])))
                else:
                    plain.append(packed.path)
        groups = [(plain, expr)] + [([path], and_filters(expr, hide)) for path, hide in shadowed]
        try:
            parts, bad = [scan(self.fs, files, where_, columns) for files, where_ in groups], []
        except (pa.ArrowException, OSError):
            parts, bad = [], []
            for files, where_ in groups:
                table, errors = scan_tolerant(self.fs, files, where_, columns)
                parts.append(table)
                bad += errors
        return pa.concat_tables(parts), bad, len(plain) + len(shadowed)

    def read_row(self, sweep_id: str, cell_key: str) -> AttemptRow:
        path = self.row_path(sweep_id, cell_key)
        if self.fs.get_file_info(path).type == pafs.FileType.File:
            try:
                return from_record(scan(self.fs, [path], None, None).to_pylist()[0])
            except (OSError, pa.ArrowException):
                if self.fs.get_file_info(path).type == pafs.FileType.File:
                    raise  # there and unreadable
                # gone between the look and the read: compaction folded it into the compacted file
        packed = self._compacted_info(sweep_id)
        rows = scan(self.fs, [packed.path], pc.field("cell_key") == cell_key, None).to_pylist() if packed else []
        if not rows:
            raise KeyError(f"no row for cell {cell_key} in sweep {sweep_id}")
        return from_record(rows[0])

    def pin_config(self, sweep_id: str, config: ConfigLike, *, replace: bool = False) -> str:
        """Save the sweep's resolved config once; a resume with a different one raises
        `ConfigMismatch`. Returns the config hash (store it in every row's `config_hash`)."""
        return pin_config(self, sweep_id, config, replace=replace)

    def export(self, path: str | os.PathLike[str], sweep_id: str | Iterable[str] | None = None) -> int:
        """Every row (of the given sweeps) into ONE local Parquet file for analysis elsewhere;
        refuses when any file is unreadable, so an export is never silently short."""
        table, bad, _ = self.read_table(sweep_id)
        if bad:
            raise CorruptResults(bad)
        sink = io.BytesIO()
        pq.write_table(table, sink, compression="zstd")
        atomic_write_bytes(Path(path), sink.getvalue(), fsync=self.fsync)
        return table.num_rows

    # -- compaction ----------------------------------------------------------------------
    def compact(self, sweep_id: str) -> int:
        """Fold the sweep's per-cell files into its compacted file; return rows compacted."""
        return compact_sweep(self, sweep_id)

    def import_table(self, sweep_id: str, table: pa.Table) -> int:
        """Merge rows (e.g. another store's export) into the sweep's compacted file."""
        return import_rows(self, sweep_id, table)

    # -- resume --------------------------------------------------------------------------
    def clear_partial(self, sweep_id: str, *, idle_s: float = 0.0) -> list[str]:
        """Remove artifact folders of cells with no committed row and stray temp files; return
        the cleared cell keys. Run on resume, before any attempt of the sweep starts; when
        another run of the sweep may still be working, `idle_s` spares folders touched within
        that many seconds."""
        done, cleared, now = self.completed_cells(sweep_id), [], time.time()
        sweep_cells = self.artifacts_root / check_name("sweep_id", sweep_id)
        for folder in sorted(sweep_cells.iterdir()) if sweep_cells.is_dir() else []:
            if folder.is_dir() and folder.name not in done and now - last_touched(folder) >= idle_s:
                shutil.rmtree(folder)
                cleared.append(folder.name)
        self._remove_temp_rows(sweep_id)
        return cleared

    def _remove_temp_rows(self, sweep_id: str) -> None:
        for info in self._sweep_files(sweep_id):
            if info.base_name.startswith(".") and info.base_name.endswith(".tmp"):
                self.fs.delete_file(info.path)


def _is_row_file(info: pafs.FileInfo) -> bool:
    name = info.base_name
    return info.type == pafs.FileType.File and name.endswith(SUFFIX) and not name.startswith((".", "_"))


def _cell_of(info: pafs.FileInfo) -> str:
    return info.base_name.removesuffix(SUFFIX)
