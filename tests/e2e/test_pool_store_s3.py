"""`clawmark sweep --results s3://…` for real against an S3 server double (moto's server, in its
own process, on loopback): rows, the pinned config, the lease and compaction in the bucket, each
committed cell's artifacts uploaded beside its row, `sweep status` and a resume read from it."""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace

import pyarrow.fs as pafs
import pytest
import yaml

from clawmark.results.location import open_store
from clawmark.settings import TASKS_CATALOG
from tests.support.s3_server import CREDENTIALS, s3_server

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture
def s3_url(tmp_path):
    """A bucket on `python -m moto.server` (stopped at the end); the store's URL in it."""
    with s3_server(tmp_path) as (url, _):
        yield url


def _run(*args, home):
    from prefect.settings import PREFECT_API_URL

    env = {**os.environ, **CREDENTIALS, "PREFECT_API_URL": PREFECT_API_URL.value(), "CLAWMARK_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "clawmark.cli.main", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=900)
    return SimpleNamespace(exit_code=done.returncode, output=done.stdout + done.stderr)


def test_a_sweep_on_an_s3_store(docker_client, prefect_harness, s3_url, tmp_path, monkeypatch):
    spec_file = tmp_path / "s3.yaml"
    spec_file.write_text(yaml.safe_dump({
        "sweep_id": "s3", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
        "tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": ["oracle", "nop"], "models": ["scripted/demo"],
        "max_parallel": 2}))
    first = _run("sweep", spec_file, "--results", s3_url, home=tmp_path / "home")
    assert first.exit_code == 0, first.output[-4000:]
    assert "2 run, 0 reused" in first.output

    for key, value in CREDENTIALS.items():
        monkeypatch.setenv(key, value)
    store = open_store(s3_url, staging=tmp_path / "elsewhere")  # another machine: nothing staged here
    frame = store.read("s3").set_index("claw")
    assert sorted(frame["status"]) == ["empty_patch", "resolved"], frame["error_message"].tolist()
    assert store.cell_files("s3") == [] and store.fs.get_file_info(store.compacted_path("s3")).size > 0
    assert store.fs.get_file_info(store.sweep_config_path("s3")).type == pafs.FileType.File
    assert store.fs.get_file_info(f"{store.root}/sweeps/s3/lease.json").type == pafs.FileType.NotFound  # released
    oracle = store.remote_cell_dir("s3", frame.loc["oracle", "cell_key"])
    with store.fs.open_input_stream(f"{oracle}/patch.diff") as stream:
        assert stream.read().startswith(b"diff --git")
    assert store.fs.get_file_info(f"{oracle}/row.json").size > 0

    again = _run("sweep", spec_file, "--results", s3_url, home=tmp_path / "home")
    assert again.exit_code == 0 and "0 run, 2 reused" in again.output, again.output[-4000:]
    status = _run("sweep", "status", "s3", "--results", s3_url, home=tmp_path / "home")
    assert status.exit_code == 0 and "empty_patch 1, resolved 1" in status.output, status.output
