"""An S3 server double for store tests: `python -m moto.server` in its own process on loopback,
one bucket in it, and the result-store URL that points at it (what a user passes to --results)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow.fs as pafs

from clawmark.cli.server import free_port

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "clawmark-test", "AWS_SECRET_ACCESS_KEY": "clawmark-test",
               "AWS_DEFAULT_REGION": "us-east-1"}
BUCKET = "clawmark"


@contextlib.contextmanager
def s3_server(log_dir: Path, host: str = "127.0.0.1") -> Iterator[tuple[str, pafs.S3FileSystem]]:
    """(store URL `s3://clawmark/results?…`, a filesystem on the server) until the block ends;
    `host`: the address it binds (loopback unless a container must reach it)."""
    port = free_port(host)
    log = log_dir / "moto.log"
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", host, "-p", str(port)],
                              stdout=log.open("wb"), stderr=subprocess.STDOUT)
    try:
        s3 = pafs.S3FileSystem(endpoint_override=f"{host}:{port}", scheme="http", region="us-east-1",
                               access_key=CREDENTIALS["AWS_ACCESS_KEY_ID"],
                               secret_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"], allow_bucket_creation=True)
        deadline = time.monotonic() + 120
        while True:
            try:
                s3.create_dir(BUCKET)
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.5)
        yield f"s3://{BUCKET}/results?endpoint_override={host}:{port}&scheme=http&region=us-east-1", s3
    finally:
        server.terminate()
        server.wait(30)
