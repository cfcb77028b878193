"""`ResultStore`: one Parquet file per cell, written atomically, read back with one schema.

```
<root>/rows/<sweep_id>/<cell_key>.parquet    the committed row of a cell (commit point)
<root>/cells/<sweep_id>/<cell_key>/          its artifact folder (`AttemptLayout`)
```
Writing the same cell again replaces its file, so a resume or a forced rerun never duplicates a
row. Writers publish through a hidden temp file + rename; readers list only visible
`*.parquet` names, so a crash mid-write leaves a stray `.tmp` that nobody reads. `root` may be
a local path or any URI `pyarrow.fs.FileSystem.from_uri` understands (s3://, gs://, ...); on
object stores a single PUT is already atomic, and the artifact folders stay on local disk.
"""

from __future__ import annotations

import io
import os
import shutil
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from clawmark.results.layout import AttemptLayout, atomic_write_bytes, check_name
from clawmark.results.row import AttemptRow
from clawmark.results.schema import RESULTS_SCHEMA, from_record, to_table

ROWS_DIR, CELLS_DIR, SUFFIX = "rows", "cells", ".parquet"


class CorruptResults(RuntimeError):
    """Some row files could not be read; `bad` names each with its error."""

    def __init__(self, bad: list[BadFile]) -> None:
        self.bad = bad
        names = ", ".join(f"{b.path} ({b.error})" for b in bad[:5])
        super().__init__(f"{len(bad)} unreadable result file(s): {names}")


@dataclass(frozen=True)
class BadFile:
    path: str
    error: str


@dataclass
class ReadResult:
    """Rows that read, plus every file that did not (never silently dropped)."""

    frame: Any  # pandas.DataFrame
    bad_files: list[BadFile] = field(default_factory=list)
    files_read: int = 0


def _pandas_types() -> dict[pa.DataType, Any]:
    import pandas as pd

    return {pa.bool_(): pd.BooleanDtype(), pa.int64(): pd.Int64Dtype()}


def to_frame(table: pa.Table) -> Any:
    """Arrow → pandas keeping nulls: bool/int columns become nullable, floats keep NaN."""
    return table.to_pandas(types_mapper=_pandas_types().get)


class ResultStore:
    """Rows and artifact folders of every sweep under one root."""

    def __init__(self, root: str | os.PathLike[str], *, artifacts_root: str | Path | None = None,
                 fsync: bool = True) -> None:
        text = os.fspath(root)
        self.is_local = "://" not in text
        if self.is_local:
            self.fs: pafs.FileSystem = pafs.LocalFileSystem()
            self.root = str(Path(text).expanduser().resolve())
        else:
            self.fs, self.root = pafs.FileSystem.from_uri(text)
        if artifacts_root is None and not self.is_local:
            raise ValueError(f"store {text}: a remote store needs a local artifacts_root")
        self.artifacts_root = Path(artifacts_root or Path(self.root) / CELLS_DIR)
        self.fsync = fsync

    # -- paths ---------------------------------------------------------------------------
    def _sweep_dir(self, sweep_id: str) -> str:
        return f"{self.root}/{ROWS_DIR}/{check_name('sweep_id', sweep_id)}"

    def row_path(self, sweep_id: str, cell_key: str) -> str:
        return f"{self._sweep_dir(sweep_id)}/{check_name('cell_key', cell_key)}{SUFFIX}"

    def layout(self, sweep_id: str, cell_key: str) -> AttemptLayout:
        return AttemptLayout(self.artifacts_root, sweep_id, cell_key)

    # -- write ---------------------------------------------------------------------------
    def write(self, row: AttemptRow) -> str:
        """Commit one row (replacing any earlier row of the same cell); return its path."""
        layout = self.layout(row.sweep_id, row.cell_key)
        if layout.dir.is_dir():
            atomic_write_bytes(layout.row_json, row.model_dump_json(indent=2).encode(), fsync=self.fsync)
        sink = io.BytesIO()
        pq.write_table(to_table([row]), sink, compression="zstd")
        path = self.row_path(row.sweep_id, row.cell_key)
        if self.is_local:
            atomic_write_bytes(Path(path), sink.getvalue(), fsync=self.fsync)
        else:
            with self.fs.open_output_stream(path) as out:
                out.write(sink.getvalue())
        return path

    # -- listing -------------------------------------------------------------------------
    def sweeps(self) -> list[str]:
        infos = self.fs.get_file_info(pafs.FileSelector(f"{self.root}/{ROWS_DIR}", allow_not_found=True))
        return sorted(i.base_name for i in infos if i.type == pafs.FileType.Directory)

    def row_files(self, sweep_id: str | Iterable[str] | None = None) -> list[str]:
        """Visible row files of the given sweep(s) (all sweeps when None); temp files excluded."""
        sweeps = self.sweeps() if sweep_id is None else [sweep_id] if isinstance(sweep_id, str) else sweep_id
        files: list[str] = []
        for sweep in sweeps:
            selector = pafs.FileSelector(self._sweep_dir(sweep), allow_not_found=True)
            files += [i.path for i in self.fs.get_file_info(selector) if _is_row_file(i)]
        return sorted(files)

    def completed_cells(self, sweep_id: str) -> set[str]:
        return {Path(p).name.removesuffix(SUFFIX) for p in self.row_files(sweep_id)}

    def has(self, sweep_id: str, cell_key: str) -> bool:
        return self.fs.get_file_info(self.row_path(sweep_id, cell_key)).type == pafs.FileType.File

    # -- read ----------------------------------------------------------------------------
    def read(self, sweep_id: str | Iterable[str] | None = None, *,
             where: Mapping[str, Any] | None = None, columns: list[str] | None = None) -> Any:
        """All rows as a pandas DataFrame with the full schema; unreadable files are warned about
        by name (use `read_report` to get them as data)."""
        result = self.read_report(sweep_id, where=where, columns=columns)
        if result.bad_files:
            warnings.warn(str(CorruptResults(result.bad_files)), stacklevel=2)
        return result.frame

    def read_report(self, sweep_id: str | Iterable[str] | None = None, *,
                    where: Mapping[str, Any] | None = None, columns: list[str] | None = None) -> ReadResult:
        files = self.row_files(sweep_id)
        expr = _filter_expression(where)
        try:
            table, bad = self._scan(files, expr, columns), []
        except (pa.ArrowException, OSError):
            table, bad = self._scan_tolerant(files, expr, columns)
        return ReadResult(to_frame(table), bad, len(files) - len(bad))

    def read_row(self, sweep_id: str, cell_key: str) -> AttemptRow:
        table = self._scan([self.row_path(sweep_id, cell_key)], None, None)
        return from_record(table.to_pylist()[0])

    def _scan(self, files: list[str], expr: Any, columns: list[str] | None) -> pa.Table:
        dataset = ds.dataset(files, schema=RESULTS_SCHEMA, format="parquet", filesystem=self.fs)
        return dataset.to_table(filter=expr, columns=columns)

    def _scan_tolerant(self, files: list[str], expr: Any, columns: list[str] | None):
        """Slow path after a failed scan: file by file, so one bad file names itself."""
        tables, bad = [], []
        for path in files:
            try:
                tables.append(self._scan([path], expr, columns))
            except (pa.ArrowException, OSError) as exc:
                bad.append(BadFile(path, f"{type(exc).__name__}: {exc}"[:300]))
        empty = RESULTS_SCHEMA if columns is None else pa.schema([RESULTS_SCHEMA.field(c) for c in columns])
        return (pa.concat_tables(tables) if tables else empty.empty_table()), bad

    # -- resume --------------------------------------------------------------------------
    def clear_partial(self, sweep_id: str) -> list[str]:
        """Remove artifact folders of cells with no committed row and stray temp files; return
        the cleared cell keys. Run on resume, before any attempt of the sweep starts."""
        done = self.completed_cells(sweep_id)
        cleared = []
        sweep_cells = self.artifacts_root / check_name("sweep_id", sweep_id)
        for folder in sorted(sweep_cells.iterdir()) if sweep_cells.is_dir() else []:
            if folder.is_dir() and folder.name not in done:
                shutil.rmtree(folder)
                cleared.append(folder.name)
        self._remove_temp_rows(sweep_id)
        return cleared

    def _remove_temp_rows(self, sweep_id: str) -> None:
        selector = pafs.FileSelector(self._sweep_dir(sweep_id), allow_not_found=True)
        for info in self.fs.get_file_info(selector):
            if info.base_name.startswith(".") and info.base_name.endswith(".tmp"):
                self.fs.delete_file(info.path)


def _is_row_file(info: pafs.FileInfo) -> bool:
    name = info.base_name
    return info.type == pafs.FileType.File and name.endswith(SUFFIX) and not name.startswith((".", "_"))


def _filter_expression(where: Mapping[str, Any] | None) -> Any:
    """`{"claw": "nop", "seed": [0, 1]}` → an Arrow filter (equality, or membership for lists)."""
    expr = None
    for column, value in (where or {}).items():
        if column not in RESULTS_SCHEMA.names:
            raise KeyError(f"filter on unknown column {column!r}")
        values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else None
        term = ds.field(column).isin(values) if values is not None else ds.field(column) == value
        expr = term if expr is None else expr & term
    return expr
