"""The result store's file level, below the store and the modules it delegates to (compaction,
pinning): reading Parquet row files of the schema, and the store interface those modules use."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import pyarrow as pa
import pyarrow.fs as pafs

from clawmark.results.errors import BadFile
from clawmark.results.schema import RESULTS_SCHEMA

if TYPE_CHECKING:
    import pyarrow.dataset as ds


class StoreFiles(Protocol):
    """What compaction and pinning need of a result store (`clawmark.results.store.ResultStore`)."""

    fs: pafs.FileSystem

    def publish(self, path: str, data: bytes) -> None: ...

    def sweep_config_path(self, sweep_id: str) -> str: ...

    def compacted_path(self, sweep_id: str) -> str: ...

    def cell_files(self, sweep_id: str) -> list[pafs.FileInfo]: ...

    def read_table(self, sweep_id: str, *, where: Mapping[str, Any] | None = None,
                   columns: list[str] | None = None) -> tuple[pa.Table, list[BadFile], int]: ...


def scan(fs: pafs.FileSystem, files: list[str], expr: ds.Expression | None, columns: list[str] | None) -> pa.Table:
    import pyarrow.dataset as ds  # noqa: PLC0415 - with pandas, ~0.3 s of every process's start; a cell run reads none

    dataset = ds.dataset(files, schema=RESULTS_SCHEMA, format="parquet", filesystem=fs)
    return dataset.to_table(filter=expr, columns=columns)


def scan_tolerant(fs: pafs.FileSystem, files: list[str], expr: ds.Expression | None,
                  columns: list[str] | None) -> tuple[pa.Table, list[BadFile]]:
    """File by file, so one bad file names itself instead of failing the whole read."""
    tables, bad = [], []
    for path in files:
        try:
            tables.append(scan(fs, [path], expr, columns))
        except (pa.ArrowException, OSError) as exc:
            bad.append(BadFile(path, f"{type(exc).__name__}: {exc}"[:300]))
    empty = RESULTS_SCHEMA if columns is None else pa.schema([RESULTS_SCHEMA.field(c) for c in columns])
    return (pa.concat_tables(tables) if tables else empty.empty_table()), bad


def and_filters(left: ds.Expression | None, right: ds.Expression | None) -> ds.Expression | None:
    return right if left is None else left if right is None else left & right


def filter_expression(where: Mapping[str, Any] | None) -> ds.Expression | None:
    """`{"claw": "nop", "seed": [0, 1]}` → an Arrow filter (equality, or membership for lists)."""
    if not where:
        return None
    import pyarrow.dataset as ds  # noqa: PLC0415 - see scan()

    expr = None
    for column, value in where.items():
        if column not in RESULTS_SCHEMA.names:
            raise KeyError(f"filter on unknown column {column!r}")
        values = list(value) if isinstance(value, (list, tuple, set, frozenset)) else None
        term = ds.field(column).isin(values) if values is not None else ds.field(column) == value
        expr = term if expr is None else expr & term
    return expr
