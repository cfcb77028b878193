"""`with WebProxy(config, task_id, out_dir, rules) as proxy:` one mitmdump process for one
attempt, bound to the gateway network's host address (where task containers reach the host).

The attempt's web layer lands in `out_dir`: `webproxy.json` (mode, hits, misses, recorded,
already_recorded, blocked, live, the first missed URLs and why each missed, the first blocked
URLs), `blocked/NNNN.json` (each refused request with its headers and payload),
`mitmdump.log`, and the config the addon read.
"""

from __future__ import annotations

import hashlib
import json
import re
import signal
import socket
import subprocess
import time
from contextlib import nullcontext
from pathlib import Path

from pydantic import BaseModel, Field

from clawmark.fsio import atomic_write_text
from clawmark.runtime.engine_lock import host_lock
from clawmark.runtime.network import GATEWAY_HOSTNAME, gateway_network
from clawmark.webproxy.config import BlockRule, WebProxyConfig
from clawmark.webproxy.errors import WebArchiveMissing, WebProxyError
from clawmark.webproxy.trust import install_trust, trust_env

ADDON = Path(__file__).with_name("addon.py")
CA_FILE = "mitmproxy-ca-cert.pem"
STOP_GRACE_S = 10
PORT_TRIES = 3


class WebStats(BaseModel):
    mode: str | None = None
    hits: int = 0
    misses: int = 0
    recorded: int = 0
    already_recorded: int = Field(0, description="Record mode: exchanges not saved because an earlier "
                                  "record run of the archive holds a matching recording.")
    blocked: int = 0
    live: int = Field(0, description="Exchanges that went to the live web.")
    miss_urls: list[str] = Field(default_factory=list)
    miss_reasons: list[str] = Field(default_factory=list, description="`METHOD URL: why` per miss: not "
                                    "recorded, or recorded with another body, cookies or header.")
    blocked_urls: list[str] = Field(default_factory=list)


class WebProxy:
    def __init__(self, config: WebProxyConfig, task_id: str, out_dir: Path,
                 rules: list[BlockRule] | None = None, host: str | None = None) -> None:
        self.config, self.task_id, self.out_dir = config, task_id, Path(out_dir)
        self.rules = [*config.block, *(rules or [])]
        self.host, self.port, self.process = host, 0, None

    @property
    def archive_dir(self) -> Path:
        return self.config.archive_dir(self.task_id)

    @property
    def ca_cert(self) -> Path:
        return self.config.ca_dir() / CA_FILE

    def __enter__(self) -> "WebProxy":
        if self.config.mode == "replay" and not any(self.archive_dir.glob("*.json")):
            raise WebArchiveMissing(f"web replay for task {self.task_id!r}: no archive in {self.archive_dir} "
                                    "(record it first with mode: record)")
        self.host = self.host or _gateway_host()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.config.ca_dir().mkdir(parents=True, exist_ok=True)
        addon_config = self._write_addon_config()
        with self._first_ca_lock():
            for attempt in range(1, PORT_TRIES + 1):
                # The port is free when probed; another attempt's proxy may take it before ours binds.
                self.port = _free_port(self.host)
                try:
                    self._start(addon_config)
                    break
                except WebProxyError as exc:
                    if attempt == PORT_TRIES or "address already in use" not in str(exc).lower():
                        raise
        return self

    def _first_ca_lock(self):
        """mitmdump makes its CA on first start: two first starts at once would each write one into
        the shared folder, and containers would trust the other's. The first start runs alone."""
        if self.ca_cert.is_file():
            return nullcontext()

        return host_lock(f"webproxy-ca-{hashlib.sha256(str(self.config.ca_dir()).encode()).hexdigest()[:16]}")

    def __exit__(self, *exc_info) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def container_env(self) -> dict[str, str]:
        """HTTP(S)_PROXY at the proxy (the model gateway stays direct) and the CA variables."""
        url = f"http://{GATEWAY_HOSTNAME}:{self.port}"
        no_proxy = f"{GATEWAY_HOSTNAME},localhost,127.0.0.1"
        return {"HTTP_PROXY": url, "HTTPS_PROXY": url, "http_proxy": url, "https_proxy": url,
                "NO_PROXY": no_proxy, "no_proxy": no_proxy, **trust_env()}

    def install_trust(self, sandbox, executor_user: str = "1000:1000") -> list[str]:
        return install_trust(sandbox, self.ca_cert, executor_user)

    def stats(self) -> WebStats:
        path = self.out_dir / "webproxy.json"
        return WebStats.model_validate_json(path.read_text()) if path.is_file() else WebStats(mode=self.config.mode)

    def blocked_requests(self) -> list[dict]:
        return [json.loads(p.read_text()) for p in sorted((self.out_dir / "blocked").glob("*.json"))]

    def _write_addon_config(self) -> Path:
        path = self.out_dir / "webproxy-config.json"
        data = {"mode": self.config.mode, "archive_dir": str(self.archive_dir), "out_dir": str(self.out_dir),
                "task_id": self.task_id, "block": [r.model_dump() for r in self.rules],
                "passthrough_hosts": self.config.passthrough_hosts, "match_headers": self.config.match_headers,
                "match_cookies": self.config.match_cookies}
        atomic_write_text(path, json.dumps(data, indent=2) + "\n")
        return path

    def _start(self, addon_config: Path) -> None:
        argv = [self.config.mitmdump_path(), "--quiet", "--listen-host", self.host, "--listen-port", str(self.port),
                "-s", str(ADDON), "--set", f"clawmark_config={addon_config}",
                "--set", f"confdir={self.config.ca_dir()}",
                # Replay must never touch the origin: no upstream connection before our hook answers.
                "--set", "connection_strategy=lazy", "--set", "upstream_cert=false"]
        if self.config.upstream_ca:
            argv += ["--set", f"ssl_verify_upstream_trusted_ca={self.config.upstream_ca}"]
        if self.config.passthrough_hosts:
            hosts = "|".join(re.escape(h) for h in self.config.passthrough_hosts)
            argv += ["--set", f"ignore_hosts=^({hosts})(:\\d+)?$"]  # TLS tunnelled as is, no CA needed
        log = open(self.out_dir / "mitmdump.log", "wb")
        self.process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        start_new_session=True)
        log.close()
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.config.start_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            if self.ca_cert.is_file() and (self.out_dir / "webproxy.json").is_file() and _accepts(self.host, self.port):
                return
            time.sleep(0.2)
        tail = (self.out_dir / "mitmdump.log").read_text(errors="replace")[-600:]
        self.__exit__(None, None, None)
        raise WebProxyError(f"the web proxy did not start on {self.host}:{self.port}: {tail.strip() or 'no output'}")


def _gateway_host() -> str:
    return gateway_network()[1]


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def _accepts(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False
