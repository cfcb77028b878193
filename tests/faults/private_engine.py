"""A private Docker engine for the engine-restart fault: its own dockerd (and the containerd it
manages) with its own socket, data root, exec root, pid file and bridge, no iptables or NAT
rules and an address pool of its own, so restarting it disturbs no test on the shared engine.
It holds only the images the test loads into it (docker save | docker load from the shared one)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

BRIDGE = "cmfault0"
BRIDGE_CIDR = "10.233.250.1/24"
ADDRESS_POOL = "base=10.233.0.0/16,size=24"  # the shared engine uses 172.17-31/16
START_TIMEOUT_S = 120


class PrivateEngine:
    def __init__(self, root: Path, bridge: str = BRIDGE, bridge_cidr: str = BRIDGE_CIDR,
                 address_pool: str = ADDRESS_POOL):
        """Another bridge and pool than the defaults let two private engines run on one host."""
        self.root, self.bridge, self.bridge_cidr, self.address_pool = root, bridge, bridge_cidr, address_pool
        self.exec_root = Path(tempfile.mkdtemp(prefix="cmfault-", dir="/run"))  # short: socket paths are limited
        self.host = f"unix://{root / 'docker.sock'}"
        self.proc: subprocess.Popen | None = None

    def argv(self) -> list[str]:
        return ["dockerd", "--host", self.host, "--data-root", str(self.root / "data"),
                "--exec-root", str(self.exec_root), "--pidfile", str(self.root / "docker.pid"),
                "--bridge", self.bridge, "--iptables=false", "--ip-masq=false", "--ip-forward=false",
                "--default-address-pool", self.address_pool, "--userland-proxy=false",
                # Without live-restore, a dockerd restarting with its own address pool deletes the
                # host's "docker0" (moby's removeDefaultBridgeInterface), the shared engine's bridge.
                "--live-restore"]

    def start(self) -> "PrivateEngine":
        if not Path(f"/sys/class/net/{self.bridge}").exists():
            _run("ip", "link", "add", self.bridge, "type", "bridge")
            _run("ip", "addr", "add", self.bridge_cidr, "dev", self.bridge)
            _run("ip", "link", "set", self.bridge, "up")
        log = (self.root / "dockerd.log").open("ab")
        self.proc = subprocess.Popen(self.argv(), stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                     start_new_session=True)
        self.wait_ready()
        return self

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"private dockerd exited: {self.log_tail()}")
            if self.docker("info", check=False).returncode == 0:
                return
            time.sleep(0.2)
        raise RuntimeError(f"private dockerd not ready in {START_TIMEOUT_S} s: {self.log_tail()}")

    def stop(self) -> None:
        """SIGTERM the dockerd this object started (it stops its containers and its containerd)."""
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(30)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def docker(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(["docker", "-H", self.host, *args], capture_output=True, text=True, check=check,
                              timeout=300)

    def load_images(self, refs: list[str]) -> None:
        """Copy images (with their shared layers, once) from the shared engine into this one."""
        saver = subprocess.Popen(["docker", "save", *refs], stdout=subprocess.PIPE)
        loaded = subprocess.run(["docker", "-H", self.host, "load", "-q"], stdin=saver.stdout,
                                capture_output=True, text=True, timeout=600)
        saver.stdout.close()
        if saver.wait(60) != 0 or loaded.returncode != 0:
            raise RuntimeError(f"docker save | load failed: {loaded.stderr[-500:]}")

    def close(self) -> None:
        """Remove what it made: networks (their bridges outlive dockerd), the daemon, its folders."""
        if self.proc is not None:
            ids = self.docker("network", "ls", "-q", "--filter", "type=custom", check=False).stdout.split()
            self.docker("rm", "-f", *self.docker("ps", "-aq", check=False).stdout.split(), check=False)
            if ids:
                self.docker("network", "rm", *ids, check=False)
            self.stop()
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)
        for mountpoint in _mounts_under(self.root):  # dockerd bind-mounts its data root on itself
            subprocess.run(["umount", "-l", mountpoint], capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.rmtree(self.exec_root, ignore_errors=True)

    def log_tail(self) -> str:
        path = self.root / "dockerd.log"
        return path.read_text(errors="replace")[-1500:] if path.exists() else ""


def _mounts_under(root: Path) -> list[str]:
    """Mount points at or below `root`, deepest first."""
    points = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
    inside = [p for p in points if p == str(root) or p.startswith(f"{root}/")]
    return sorted(inside, key=len, reverse=True)


def _run(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True)


def image_chain(client, ref: str) -> list[str]:
    """`ref` and every image it was built on (the `clawmark.parent` labels): the refs the
    runtime checks before it would build anything."""
    refs = []
    while ref:
        refs.append(ref)
        ref = (client.images.get(ref).labels or {}).get("clawmark.parent", "")
    return refs


def environ_for(engine: PrivateEngine) -> dict[str, str]:
    return {**os.environ, "DOCKER_HOST": engine.host}
