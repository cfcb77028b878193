"""The results disk fills up in the middle of a real sweep (a small tmpfs mounted by the test,
filled to the last byte once the first row is committed): the sweep stops with a message that
says the disk is full, no row file is corrupt, and the next run, after space is freed, finishes
the cells without a row and leaves the committed ones alone."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import pytest

from clawmark.results import ResultStore
from clawmark.results.errors import ResultsDiskFull
from tests.support.fault_sweeps import assert_kept, rows, set_limits, spec

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture
def small_disk(tmp_path):
    """A 64 MB tmpfs (the test runs as root, as CI does)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill_when_first_row_lands(rows_dir: Path, filler: Path, stop: threading.Event) -> None:
    """Watch for the first committed row file, then take every byte left on the disk."""
    while not stop.is_set() and not any(rows_dir.glob("*.parquet")):
        time.sleep(0.05)
    if stop.is_set():
        return
    for block in (2**20, 512):  # big blocks, then the last partial ones
        try:
            with filler.open("ab") as out:
                while True:
                    out.write(b"\0" * block)
                    out.flush()
        except OSError:
            pass  # ENOSPC: the disk is full


def test_a_full_results_disk_stops_the_sweep_cleanly_and_the_next_run_finishes(
        docker_client, prefect_harness, small_disk, monkeypatch):
    from flows.sweep import sweep

    # The disk preflight (a floor of free space before each cell) would prune the shared engine's
    # instance images for a 64 MB disk: off, so the disk fills in the middle of cells, as it can.
    monkeypatch.setenv("CLAWMARK_DISK_FLOOR_GB", "0")

    set_limits(**{"clawmark-docker-local": 1})
    results = small_disk / "results"
    store = ResultStore(results)
    sweep_spec = spec("full", ["oracle", "nop"], ["scripted/demo"], seeds=[0, 1])
    filler, stop = small_disk / "filler.bin", threading.Event()
    watcher = threading.Thread(target=fill_when_first_row_lands, daemon=True,
                               args=(results / "rows" / "full", filler, stop))
    watcher.start()
    try:
        with pytest.raises(ResultsDiskFull) as stopped:
            sweep(spec=sweep_spec, results_dir=str(results))
    finally:
        stop.set()
        watcher.join(30)
    before = rows(store, "full")  # every row file that exists reads: none is half-written
    assert 1 <= len(before) < 4
    message = str(stopped.value)
    assert f"results disk full under {store.root}" in message and "run the sweep again" in message
    assert f"{4 - len(before)} cell(s) not run" in message

    filler.unlink()  # space is freed
    again = sweep(spec=sweep_spec, results_dir=str(results))
    after = rows(store, "full")
    assert (again["cells"], again["skipped"], len(after)) == (4, len(before), 4)
    assert_kept(before, after)
    assert sorted(r["status"] for r in after.values()) == ["empty_patch"] * 2 + ["resolved"] * 2
