"""A real Docker registry for tests: Debian's docker-registry (installed on first use by
scripts/registry-up.sh) in its own process, its blobs in a test folder, stopped at the end."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import yaml

from clawmark.cli.server import free_port
from tests.support.paths import REPO


@contextlib.contextmanager
def image_registry(folder: Path, host: str = "127.0.0.1") -> Iterator[int]:
    """Yields the port. The host's engine trusts a registry on loopback over plain HTTP; bind
    `host="0.0.0.0"` when a container's engine must reach it too (at its bridge's address)."""
    if not shutil.which("docker-registry"):
        subprocess.run(["bash", str(REPO / "scripts" / "registry-up.sh")], check=True, timeout=900)
    folder.mkdir(parents=True, exist_ok=True)
    port, config = free_port(host), folder / "registry.yml"
    config.write_text(yaml.safe_dump({"version": 0.1, "log": {"level": "warn"},
                                      "storage": {"filesystem": {"rootdirectory": str(folder / "data")},
                                                  "delete": {"enabled": True}},
                                      "http": {"addr": f"{host}:{port}"}}))
    with (folder / "registry.log").open("wb") as log:
        server = subprocess.Popen(["docker-registry", "serve", str(config)], stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/v2/", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert server.poll() is None and time.monotonic() < deadline, (folder / "registry.log").read_text()
                time.sleep(0.2)
            yield port
        finally:
            server.terminate()
            server.wait(30)
