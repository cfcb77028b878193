"""ResultStore: round trip with one schema, atomic + idempotent writes, tolerant reads."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from clawmark.results import RESULTS_SCHEMA, ResultStore, fold_usage, from_record
from clawmark.results.synthetic import example_row


def _same(a, b) -> bool:
    """Equality where NaN equals NaN (the row model keeps NaN for unscored/unpriced)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return a == b


@pytest.fixture
def store(tmp_path):
    return ResultStore(tmp_path / "store", fsync=False)


def test_round_trip_keeps_values_nan_and_nulls(store):
    row = example_row(status="infra_error", score=math.nan, task_id="007", error_message="boom",
                      usage=fold_usage({"executor": {"input_tokens": 5, "cost_usd": None, "calls": 1}}))
    store.write(row)
    frame = store.read()
    assert len(frame) == 1 and list(frame.columns) == RESULTS_SCHEMA.names
    got = frame.iloc[0]
    assert got["task_id"] == "007"  # string values stay strings
    assert got["passed"] is __import__("pandas").NA and math.isnan(got["score"])
    assert math.isnan(got["executor_cost_usd"]) and math.isnan(got["cost_usd"]) and got["supervisor_cost_usd"] == 0.0
    assert _same(from_record(got.to_dict()).model_dump(), row.model_dump())
    assert _same(store.read_row(row.sweep_id, row.cell_key).model_dump(), row.model_dump())


def test_column_dtypes_are_nullable(store):
    store.write(example_row())
    frame = store.read()
    assert str(frame["passed"].dtype) == "boolean" and str(frame["turns"].dtype) == "Int64"
    assert str(frame["score"].dtype) == "float64" and str(frame["started_at"].dtype) == "datetime64[us, UTC]"


def test_writing_the_same_cell_twice_keeps_one_row(store):
    store.write(example_row(status="fail", score=0.3))
    store.write(example_row(status="pass", score=0.95))
    frame = store.read()
    assert len(frame) == 1 and frame.iloc[0]["status"] == "pass"
    assert len(store.cell_files("sweep-1")) == 1


def test_has_and_completed_cells(store):
    a, b = example_row(seed=0), example_row(seed=1)
    store.write(a)
    assert store.has("sweep-1", a.cell_key) and not store.has("sweep-1", b.cell_key)
    store.write(b)
    assert store.completed_cells("sweep-1") == {a.cell_key, b.cell_key}
    assert store.completed_cells("other-sweep") == set()


def test_crash_before_rename_leaves_a_temp_file_that_reads_ignore(store):
    kept = example_row(seed=0)
    store.write(kept)
    crashing = example_row(seed=1)
    child = textwrap.dedent(f"""
        import os
        from clawmark.results import ResultStore
        from clawmark.results.synthetic import example_row
        os.replace = lambda *a, **k: os._exit(3)   # the process dies between write and rename
        ResultStore({str(store.root)!r}).write(example_row(seed=1))
    """)
    assert subprocess.run([sys.executable, "-c", child]).returncode == 3
    leftovers = [p.name for p in (Path(store.root) / "rows" / "sweep-1").iterdir()]
    assert any(name.endswith(".tmp") for name in leftovers)
    frame = store.read()
    assert list(frame["cell_key"]) == [kept.cell_key] and not store.has("sweep-1", crashing.cell_key)
    store.clear_partial("sweep-1")
    assert not any(p.name.endswith(".tmp") for p in (Path(store.root) / "rows" / "sweep-1").iterdir())


def test_file_missing_a_column_reads_with_the_full_schema(store, tmp_path):
    old, new = example_row(seed=0), example_row(seed=1, image_id="sha256:abc")
    store.write(new)
    path = store.write(old)
    table = pq.read_table(path).drop_columns(["image_id", "score", "passed"])
    pq.write_table(table, path)
    frame = store.read().set_index("cell_key")
    assert list(frame.columns) == [n for n in RESULTS_SCHEMA.names if n != "cell_key"]
    assert frame.loc[new.cell_key, "image_id"] == "sha256:abc"
    assert math.isnan(frame.loc[old.cell_key, "score"]) and frame.loc[old.cell_key, "passed"] is __import__("pandas").NA


def test_rows_written_before_followup_leak_blocked_read_as_unknown(store):
    old, new = example_row(seed=0), example_row(seed=1, followup_leak_blocked=2)
    store.write(new)
    path = store.write(old)
    pq.write_table(pq.read_table(path).drop_columns(["followup_leak_blocked"]), path)
    frame = store.read().set_index("cell_key")
    assert frame.loc[new.cell_key, "followup_leak_blocked"] == 2
    assert frame.loc[old.cell_key, "followup_leak_blocked"] is __import__("pandas").NA
    assert store.read_row(old.sweep_id, old.cell_key).followup_leak_blocked is None


def test_corrupt_file_is_named_and_other_rows_still_read(store):
    good, broken = example_row(seed=0), example_row(seed=1)
    store.write(good)
    path = store.write(broken)
    data = open(path, "rb").read()
    open(path, "wb").write(data[: len(data) // 2])  # truncated
    result = store.read_report()
    assert list(result.frame["cell_key"]) == [good.cell_key]
    assert [b.path for b in result.bad_files] == [path] and result.files_read == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert len(store.read()) == 1
    assert any(path in str(w.message) for w in caught)


def test_read_filters_sweeps_columns_and_values(store):
    store.write(example_row(claw="nop"))
    store.write(example_row(claw="oracle"))
    store.write(example_row(sweep_id="sweep-2", claw="nop"))
    assert len(store.read("sweep-1")) == 2 and store.sweeps() == ["sweep-1", "sweep-2"]
    assert list(store.read(where={"claw": "oracle"})["claw"]) == ["oracle"]
    assert len(store.read(["sweep-1", "sweep-2"], where={"claw": ["nop"], "status": "pass"})) == 2
    assert list(store.read(columns=["claw", "score"]).columns) == ["claw", "score"]
    with pytest.raises(KeyError):
        store.read(where={"no_such_column": 1})
    with pytest.raises(KeyError, match="no_such_column"):
        store.read(columns=["claw", "no_such_column"])
    with pytest.raises(KeyError, match="no row"):
        store.read_row("sweep-1", "0" * 16)


def test_empty_store_reads_an_empty_frame_with_the_schema(store):
    frame = store.read()
    assert len(frame) == 0 and list(frame.columns) == RESULTS_SCHEMA.names


def test_row_json_is_written_into_an_existing_artifact_folder(store):
    row = example_row()
    layout = store.layout(row.sweep_id, row.cell_key).ensure()
    assert not layout.is_complete()
    store.write(row)
    assert layout.is_complete() and '"status": "pass"' in layout.row_json.read_text()


def test_clear_partial_removes_only_unfinished_cells(store):
    done, unfinished = example_row(seed=0), example_row(seed=1)
    done_layout = store.layout(done.sweep_id, done.cell_key).ensure()
    store.write(done)
    partial = store.layout(unfinished.sweep_id, unfinished.cell_key).ensure()
    (partial.logs / "agent.log").write_text("half a run")
    assert store.clear_partial("sweep-1") == [unfinished.cell_key]
    assert not partial.dir.exists() and done_layout.row_json.is_file()
    assert store.clear_partial("sweep-1") == []


def test_unsafe_sweep_id_is_refused(store):
    with pytest.raises(ValueError, match="sweep_id"):
        store.has("../escape", "abc")


def test_resume_with_a_different_config_is_refused(store):
    from clawmark.results import ConfigMismatch

    config = {"budget_s": 3600, "claws": ["nop"]}
    first = store.pin_config("sweep-1", config)
    assert store.pin_config("sweep-1", dict(reversed(list(config.items())))) == first  # same config resumes
    with pytest.raises(ConfigMismatch, match="sweep-1"):
        store.pin_config("sweep-1", {"budget_s": 60, "claws": ["nop"]})
    assert store.pin_config("sweep-1", {"budget_s": 60}, replace=True) != first
    assert store.pin_config("sweep-2", {"budget_s": 60}) != first


def test_a_filesystem_uri_root_uses_the_generic_path(tmp_path):
    # file:// goes through pyarrow.fs.FileSystem.from_uri like s3:// or gs:// would
    store = ResultStore(f"file://{tmp_path}/remote", artifacts_root=tmp_path / "cells")
    assert not store.is_local
    a, b = example_row(seed=0), example_row(seed=1)
    store.write(a)
    store.write(b)
    store.write(a)
    assert store.has("sweep-1", a.cell_key) and len(store.read()) == 2
    assert store.compact("sweep-1") == 2 and len(store.read()) == 2 and store.cell_files("sweep-1") == []
    assert (tmp_path / "remote" / "rows" / "sweep-1" / "_compacted.parquet").is_file()


def test_a_remote_root_needs_a_local_artifacts_root(tmp_path):
    with pytest.raises(ValueError, match="artifacts_root"):
        ResultStore(f"file://{tmp_path}/remote")


def test_an_fsspec_filesystem_plugs_in(tmp_path):
    import fsspec
    import pyarrow.fs as pafs

    memory = pafs.PyFileSystem(pafs.FSSpecHandler(fsspec.filesystem("memory")))
    store = ResultStore("/clawmark-test", filesystem=memory, artifacts_root=tmp_path / "cells")
    row = example_row()
    store.write(row)
    store.write(row)
    assert store.completed_cells("sweep-1") == {row.cell_key} and list(store.read()["cell_key"]) == [row.cell_key]
    assert store.pin_config("sweep-1", {"a": 1}) == store.pin_config("sweep-1", {"a": 1})


def test_clear_partial_spares_folders_another_run_is_still_writing(store):
    import os
    import time

    busy, stale = example_row(seed=0), example_row(seed=1)
    busy_layout = store.layout(busy.sweep_id, busy.cell_key).ensure()
    stale_layout = store.layout(stale.sweep_id, stale.cell_key).ensure()
    (busy_layout.logs / "agent.log").write_text("still running")
    old = time.time() - 7200
    for path in (stale_layout.dir, stale_layout.logs, stale_layout.transcript, stale_layout.artifacts,
                 busy_layout.dir, busy_layout.transcript, busy_layout.artifacts):
        os.utime(path, (old, old))
    assert store.clear_partial("sweep-1", idle_s=3600) == [stale.cell_key]
    assert busy_layout.dir.is_dir() and not stale_layout.dir.exists()


def test_role_caps_and_refused_calls_round_trip_and_older_rows_read_without_them(store):
    """Issue 17's per-role columns: written and read back; a row written before them reads
    with null counts and NaN caps, under the same cell key."""
    summary = {"executor": {"calls": 3, "refused_calls": 2, "cost_usd": 2.2}, "supervisor": {"calls": 1, "cost_usd": 0.01}}
    usage = fold_usage(summary, {"executor": 2.0, "supervisor": 0.5, "user_simulator": 0.5})
    new, old = example_row(seed=0, usage=usage), example_row(seed=1, usage=usage)
    store.write(new)
    path = store.write(old)
    dropped = [f"{role}_{name}" for role in ("executor", "supervisor", "user_simulator")
               for name in ("cap_usd", "refused_calls")]
    pq.write_table(pq.read_table(path).drop_columns(dropped), path)
    frame = store.read().set_index("cell_key")
    got, before = frame.loc[new.cell_key], frame.loc[old.cell_key]
    assert (got["executor_cap_usd"], got["supervisor_cap_usd"], got["executor_refused_calls"]) == (2.0, 0.5, 2)
    assert got["executor_cost_usd"] == 2.2 and got["supervisor_refused_calls"] == 0
    assert math.isnan(before["executor_cap_usd"]) and before["executor_refused_calls"] is __import__("pandas").NA
    assert from_record(before.to_dict() | {"cell_key": old.cell_key}).cell_key == old.cell_key
    assert _same(store.read_row(new.sweep_id, new.cell_key).model_dump(), new.model_dump())
