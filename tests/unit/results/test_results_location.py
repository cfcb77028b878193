"""A result store named by one string: rows, the pinned config, leases, compaction and artifacts
(staged locally, uploaded at commit) on a pyarrow URI and on an fsspec filesystem."""

from __future__ import annotations

import json
import uuid

import pyarrow.fs as pafs
import pytest

from clawmark.results.lease import LeaseHeld, SweepLease, cell_lease
from clawmark.results.location import open_store
from clawmark.results.synthetic import example_row
from clawmark.sweeps.progress import SweepWatcher


def _urls(tmp_path):
    return [f"file://{tmp_path}/remote", f"memory://clawmark-{uuid.uuid4().hex[:8]}/results"]


@pytest.mark.parametrize("kind", ["pyarrow", "fsspec"])
def test_a_url_store_keeps_rows_pin_lease_and_compaction_remotely(tmp_path, kind):
    url = _urls(tmp_path)[kind == "fsspec"]
    store = open_store(url, staging=tmp_path / "staging")
    assert not store.is_local and store.location == url
    a, b = example_row(seed=0), example_row(seed=1)
    layout = store.layout(a.sweep_id, a.cell_key).ensure()
    (layout.logs / "agent.log").write_text("turn 1")
    store.write(a)
    store.write(b)
    store.write(a)
    assert store.artifacts_root == tmp_path / "staging"
    uploaded = f"{store.remote_cell_dir(a.sweep_id, a.cell_key)}/logs/agent.log"
    with store.fs.open_input_stream(uploaded) as stream:
        assert stream.read() == b"turn 1"
    with store.fs.open_input_stream(f"{store.remote_cell_dir(a.sweep_id, a.cell_key)}/row.json") as stream:
        assert json.loads(stream.read())["cell_key"] == a.cell_key

    again = open_store(url, staging=tmp_path / "other-staging")  # another process, same URL
    assert again.completed_cells("sweep-1") == {a.cell_key, b.cell_key}
    assert again.pin_config("sweep-1", {"a": 1}) == store.pin_config("sweep-1", {"a": 1})
    with SweepLease(store, "sweep-1"):
        with pytest.raises(LeaseHeld):
            SweepLease(again, "sweep-1", ttl_s=3600).acquire()
    assert again.compact("sweep-1") == 2 and len(store.read("sweep-1")) == 2 and store.cell_files("sweep-1") == []


def test_an_unknown_scheme_names_the_url():
    with pytest.raises(ValueError, match="nosuchfs://x"):
        open_store("nosuchfs://x/results")


def test_a_cell_lease_counts_as_running_until_its_row_commits(tmp_path):
    store = open_store(_urls(tmp_path)[1], staging=tmp_path / "staging")
    a, b = example_row(seed=0), example_row(seed=1)
    watcher = SweepWatcher(store, "sweep-1", {a.cell_key, b.cell_key})
    watcher.prime()
    lease = cell_lease(store, "sweep-1", a.cell_key).acquire()
    with pytest.raises(LeaseHeld):  # a second run of the same cell is refused while the first lives
        cell_lease(store, "sweep-1", a.cell_key).acquire()
    watcher.poll()
    assert watcher.counts.running == 1
    store.write(a)
    lease.release()
    assert [c.cell_key for c in watcher.poll()] == [a.cell_key]
    assert (watcher.counts.running, watcher.counts.done, watcher.counts.left) == (0, 1, 1)
    assert store.fs.get_file_info(lease.path).type == pafs.FileType.NotFound
