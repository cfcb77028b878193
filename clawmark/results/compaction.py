"""Folding a sweep's per-cell files into one `_compacted.parquet`, and bulk imports into it.

Per-cell files are the crash-safe journal of a running sweep; opening thousands of small
Parquet files costs milliseconds each, so a finished sweep is compacted into one file that
reads at columnar speed. A cell's own file always wins over its compacted row, so rerunning a
cell after compaction just writes its file again. Run compaction when no attempt of the sweep
is writing (a flow's final step): a file replaced between our size/mtime check and the delete
would be lost.
"""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from clawmark.results.errors import CorruptResults, SchemaMismatch
from clawmark.results.schema import conform
from clawmark.results.store_files import StoreFiles, scan_tolerant

ROW_GROUP_ROWS = 256 * 1024


def compact_sweep(store: StoreFiles, sweep_id: str) -> int:
    """Rewrite the compacted file with every row of the sweep; delete the folded cell files."""
    consumed = store.cell_files(sweep_id)
    if not consumed:
        return 0
    table, bad, _ = store.read_table(sweep_id)
    if bad:
        raise CorruptResults(bad)  # never rewrite over rows we could not read
    _write(store, sweep_id, table)
    _remove_unchanged(store.fs, consumed)
    return table.num_rows


def import_rows(store: StoreFiles, sweep_id: str, table: pa.Table) -> int:
    """Merge `table` into the sweep's compacted file; imported rows replace same-key rows."""
    rows = conform(table)
    _check_import(rows, sweep_id)
    existing = _existing(store, sweep_id)
    if existing is not None:
        keep = pc.invert(pc.is_in(existing["cell_key"], value_set=rows["cell_key"]))
        rows = pa.concat_tables([existing.filter(keep), rows])
    _write(store, sweep_id, rows)
    return table.num_rows


def _check_import(rows: pa.Table, sweep_id: str) -> None:
    sweeps = set(rows["sweep_id"].unique().to_pylist())
    if rows.num_rows and sweeps != {sweep_id}:
        raise SchemaMismatch(f"import into sweep {sweep_id!r}: rows carry sweep_id {sorted(map(str, sweeps))}")
    keys = rows["cell_key"]
    if keys.null_count or pc.count_distinct(keys).as_py() != rows.num_rows:
        raise SchemaMismatch(f"import into sweep {sweep_id!r}: cell_key must be present and unique per row")


def _existing(store: StoreFiles, sweep_id: str) -> pa.Table | None:
    path = store.compacted_path(sweep_id)
    if store.fs.get_file_info(path).type != pafs.FileType.File:
        return None
    table, bad = scan_tolerant(store.fs, [path], None, None)
    if bad:
        raise CorruptResults(bad)
    return table


def _write(store: StoreFiles, sweep_id: str, table: pa.Table) -> None:
    ordered = table.sort_by([("cell_key", "ascending")])
    sink = io.BytesIO()
    pq.write_table(ordered, sink, compression="zstd", row_group_size=ROW_GROUP_ROWS)
    store.publish(store.compacted_path(sweep_id), sink.getvalue())


def _remove_unchanged(fs: pafs.FileSystem, consumed: list[pafs.FileInfo]) -> None:
    for before in consumed:
        now = fs.get_file_info(before.path)
        if now.type == pafs.FileType.File and (now.mtime_ns, now.size) == (before.mtime_ns, before.size):
            fs.delete_file(before.path)


