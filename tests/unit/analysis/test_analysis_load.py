"""Analysis reads the same rows from a store root or from one exported Parquet file."""

from __future__ import annotations

import pytest

from analysis.load import load_rows
from clawmark.results import RESULTS_SCHEMA, CorruptResults, ResultStore
from clawmark.results.synthetic import example_row


def test_export_and_load_give_the_same_rows(tmp_path):
    store = ResultStore(tmp_path / "store", fsync=False)
    for seed in range(3):
        store.write(example_row(seed=seed))
    store.write(example_row(sweep_id="other"))
    assert store.export(tmp_path / "all.parquet") == 4
    from_file = load_rows(tmp_path / "all.parquet", "sweep-1").sort_values("cell_key").reset_index(drop=True)
    from_store = load_rows(tmp_path / "store", "sweep-1").sort_values("cell_key").reset_index(drop=True)
    assert list(from_file.columns) == RESULTS_SCHEMA.names and len(from_file) == 3
    assert from_file.equals(from_store)


def test_export_refuses_when_a_file_is_unreadable(tmp_path):
    store = ResultStore(tmp_path / "store", fsync=False)
    path = store.write(example_row())
    open(path, "wb").write(b"not parquet")
    with pytest.raises(CorruptResults):
        store.export(tmp_path / "all.parquet")
    assert not (tmp_path / "all.parquet").exists()


def test_missing_source_names_itself(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        load_rows(tmp_path / "nowhere")
