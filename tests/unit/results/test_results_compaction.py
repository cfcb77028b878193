"""Compaction and bulk import: one file per finished sweep, never a duplicated or lost row."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from clawmark.results import CorruptResults, ResultStore, SchemaMismatch
from clawmark.results.synthetic import example_row, synthetic_table


@pytest.fixture
def store(tmp_path):
    return ResultStore(tmp_path / "store", fsync=False)


def _write_cells(store, n):
    rows = [example_row(seed=i, score=0.95) for i in range(n)]
    for row in rows:
        store.write(row)
    return rows


def test_compact_folds_cell_files_into_one_without_changing_rows(store):
    rows = _write_cells(store, 5)
    before = store.read().sort_values("cell_key").reset_index(drop=True)
    assert store.compact("sweep-1") == 5
    assert store.cell_files("sweep-1") == [] and Path(store.compacted_path("sweep-1")).is_file()
    after = store.read().sort_values("cell_key").reset_index(drop=True)
    assert after.equals(before)
    assert all(store.has("sweep-1", r.cell_key) for r in rows)
    assert store.completed_cells("sweep-1") == {r.cell_key for r in rows}
    assert store.read_row("sweep-1", rows[2].cell_key).seed == 2


def test_rerun_after_compaction_shadows_the_compacted_row(store):
    rows = _write_cells(store, 3)
    store.compact("sweep-1")
    store.write(example_row(seed=1, status="fail", score=0.1))
    frame = store.read()
    assert len(frame) == 3
    assert frame.set_index("cell_key").loc[rows[1].cell_key, "status"] == "fail"
    assert len(store.read(where={"status": "pass"})) == 2
    store.compact("sweep-1")
    assert len(store.read()) == 3 and store.read_row("sweep-1", rows[1].cell_key).status == "fail"


def test_clear_partial_keeps_folders_of_compacted_cells(store):
    row = example_row()
    layout = store.layout(row.sweep_id, row.cell_key).ensure()
    store.write(row)
    store.compact("sweep-1")
    assert store.clear_partial("sweep-1") == [] and layout.dir.is_dir()


def test_import_table_merges_and_replaces_same_keys(store):
    table = synthetic_table(1000, sweep_id="imp")
    assert store.import_table("imp", table) == 1000
    assert store.import_table("imp", table.slice(0, 10)) == 10
    frame = store.read("imp")
    assert len(frame) == 1000 and frame["cell_key"].is_unique
    assert store.has("imp", table["cell_key"][999].as_py())


def test_import_refuses_wrong_sweep_duplicate_keys_and_unknown_columns(store):
    table = synthetic_table(10, sweep_id="imp")
    with pytest.raises(SchemaMismatch, match="sweep_id"):
        store.import_table("other", table)
    dup = table.set_column(table.schema.get_field_index("cell_key"), "cell_key",
                           pc.if_else(pc.greater(pc.utf8_length(table["cell_key"]), 0), "same", "x"))
    with pytest.raises(SchemaMismatch, match="unique"):
        store.import_table("imp", dup)
    with pytest.raises(SchemaMismatch, match="not in RESULTS_SCHEMA"):
        store.import_table("imp", table.append_column("surprise", table["seed"]))


def test_import_fills_missing_columns_with_nulls(store):
    table = synthetic_table(4, sweep_id="imp").select(["sweep_id", "cell_key", "claw", "score"])
    store.import_table("imp", table)
    frame = store.read("imp")
    assert frame["passed"].isna().all() and frame["claw"].notna().all()


def test_corrupt_compacted_file_is_named_and_compaction_refuses(store):
    _write_cells(store, 2)
    store.compact("sweep-1")
    path = store.compacted_path("sweep-1")
    Path(path).write_bytes(Path(path).read_bytes()[:100])
    survivor = example_row(seed=7)
    store.write(survivor)
    result = store.read_report()
    assert list(result.frame["cell_key"]) == [survivor.cell_key] and [b.path for b in result.bad_files] == [path]
    with pytest.raises(CorruptResults, match="_compacted"):
        store.compact("sweep-1")
    assert store.has("sweep-1", survivor.cell_key)  # the refused compaction deleted nothing


def test_has_raises_on_a_corrupt_compacted_file_instead_of_answering_no(store):
    rows = _write_cells(store, 2)
    store.compact("sweep-1")
    Path(store.compacted_path("sweep-1")).write_bytes(b"PAR1 garbage")
    with pytest.raises(CorruptResults, match="_compacted"):
        store.has("sweep-1", rows[0].cell_key)


def test_a_row_compacted_between_the_look_and_the_read_is_read_from_the_compacted_file(store, monkeypatch):
    """A live view lists a cell's file, then the sweep's end compacts (and deletes) it before the
    read: the row is read where it went, not an OSError at the end of a finished sweep."""
    import clawmark.results.store as store_module

    rows = _write_cells(store, 2)
    real_scan, compacted = store_module.scan, []

    def compaction_first(fs, files, expr, columns):
        if not compacted:  # once: compaction reads through scan too
            compacted.append("started")
            compacted.append(store.compact("sweep-1"))
        return real_scan(fs, files, expr, columns)

    monkeypatch.setattr(store_module, "scan", compaction_first)
    assert store.read_row("sweep-1", rows[1].cell_key).seed == 1
    assert compacted == ["started", 2] and store.cell_files("sweep-1") == []  # it went, between the look and the read


def test_an_unreadable_row_file_that_is_still_there_is_an_error(store):
    rows = _write_cells(store, 1)
    Path(store.row_path("sweep-1", rows[0].cell_key)).write_bytes(b"not parquet")
    with pytest.raises((OSError, pa.ArrowException)):
        store.read_row("sweep-1", rows[0].cell_key)
