"""`clawmark run --results s3://…` for real (reference claw, scripted model, Docker) against an S3
server double: the row and the cell's artifacts land in the bucket, and `clawmark report` and
`clawmark audit` read them back from there with nothing staged on the reading side."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from clawmark.results.location import open_store
from tests.support.attempt_fixtures import INI
from tests.support.s3_server import CREDENTIALS, s3_server

pytestmark = pytest.mark.docker


def test_run_writes_to_an_s3_store_that_report_and_audit_read(tmp_path, docker_client, monkeypatch):
    from clawmark.cli.main import app
    from clawmark.settings import settings

    for name, value in CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CLAWMARK_HOME", str(tmp_path / "home"))
    settings.cache_clear()
    try:
        with s3_server(tmp_path) as (url, _):
            ran = CliRunner().invoke(app, ["run", INI, "--claw", "reference", "--model", f"scripted/ref-{INI}",
                                           "--results", url, "--sweep-id", "remote-run", "--json"])
            assert ran.exit_code == 0, ran.output
            row = json.loads(ran.output[ran.output.index("{"):])
            assert (row["status"], row["task_id"]) == ("resolved", INI)

            store = open_store(url, staging=tmp_path / "reader")  # a second machine
            [stored] = store.read("remote-run").to_dict("records")
            assert (stored["cell_key"], stored["status"]) == (row["cell_key"], "resolved")
            cell = store.remote_cell_dir("remote-run", row["cell_key"])
            with store.fs.open_input_stream(f"{cell}/patch.diff") as stream:
                assert stream.read().startswith(b"diff --git")

            report = CliRunner().invoke(app, ["report", "remote-run", "--results", url, "--out",
                                              str(tmp_path / "report"), "--n-boot", "100"])
            assert report.exit_code == 0 and (tmp_path / "report" / "index.html").is_file(), report.output
            audit = CliRunner().invoke(app, ["audit", "remote-run", "--results", url])
            assert audit.exit_code == 0 and "audit remote-run: clean" in audit.output, audit.output
            assert "1 rows, 1 cells checked for hidden material" in audit.output
            assert not (tmp_path / "reader").exists()
    finally:
        settings.cache_clear()
