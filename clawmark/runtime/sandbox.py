"""A disposable container with limits: provision, exec with a host-side deadline, copy files
in and out, tear down. The container's main process is a sleep bounded by the lifetime, so a
leaked sandbox dies by itself even if nobody (janitor included) removes it."""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from pathlib import Path

import docker

from clawmark.runtime import owner, tar_transfer
from clawmark.runtime.engine import shared_client
from clawmark.runtime.errors import ContainerGone, ExecTimeout, ImageMissing, OutOfMemory
from clawmark.runtime.execution import ExecResult, run_exec
from clawmark.runtime.kill_script import KILL_ALL_BUT_INIT
from clawmark.runtime.network import GATEWAY_HOSTNAME, network_for
from clawmark.runtime.privileges import Privileges, host_config, refuse_engine_socket
from clawmark.runtime.sandbox_config import HOST_GATEWAY, SandboxConfig

DEATH_SETTLE_S = 3.0  # how long a SIGKILLed command waits for the engine to record a container's stop

__all__ = ["ExecResult", "Privileges", "Sandbox", "SandboxConfig"]


_LIVE: "weakref.WeakSet[Sandbox]" = weakref.WeakSet()


class Sandbox:
    """One running container. Use as a context manager, or call teardown() yourself;
    sandboxes still up when the interpreter exits normally are torn down then."""

    def __init__(self, config: SandboxConfig, container, client) -> None:
        self.config, self._container, self._client = config, container, client
        self.container_id: str = container.id
        self.image_id: str = container.attrs.get("Image", "")
        self._oom_kills_seen = 0
        self._processes_ended_at = float("-inf")  # when end_processes last began (monotonic)
        # Execs begun in this container, and how many had begun when end_processes last finished:
        # only an exec starts a process here (the lifetime command aside), so equal counts mean
        # nothing can be running to end.
        self._execs_begun, self._execs_ended_at, self._count_lock = 0, 0, threading.Lock()
        _LIVE.add(self)

    @classmethod
    def provision(cls, config: SandboxConfig, client=None) -> "Sandbox":
        """Start the container (raises ImageMissing when the image is absent)."""
        client = client or shared_client()
        refuse_engine_socket(config.volumes)
        try:
            container = client.containers.create(config.image, **_run_kwargs(config, client))
        except docker.errors.ImageNotFound as exc:
            raise ImageMissing.not_present(config.image) from exc
        try:
            container.start()
        except BaseException:
            container.remove(force=True)  # a created-but-unstarted container would leak
            raise
        return cls(config, container, client)

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc_info) -> None:
        self.teardown()

    def exec(self, cmd: str | list[str], timeout_s: float, workdir: str | None = None,
             env: dict[str, str] | None = None, user: str | None = None, *,
             raise_on_timeout: bool = False) -> ExecResult:
        """Run `cmd` (a str runs under `bash -lc`) and return its result.

        A non-zero exit is a result, not an error. Raises ContainerGone (OutOfMemory when the
        kernel OOM-killed the command) and, only when asked, ExecTimeout.
        """
        argv = ["bash", "-lc", cmd] if isinstance(cmd, str) else list(cmd)
        started = time.monotonic()
        with self._count_lock:
            self._execs_begun += 1
        try:
            result = run_exec(self._client.api, self.container_id, argv, timeout_s,
                              workdir=workdir or self.config.workdir, env=env,
                              user=user or self.config.user, max_output_bytes=self.config.max_output_bytes)
        except docker.errors.APIError as exc:
            raise ContainerGone(self._death_reason() or f"exec failed: {exc.explanation or exc}") from exc
        if result.timed_out:
            self._raise_if_container_killed(result)
            if raise_on_timeout:
                raise ExecTimeout(" ".join(argv)[:200], timeout_s, result)
        elif result.exit_code in (None, 137) and self._processes_ended_at < started:
            self._raise_if_killed(result)  # not our own end_processes: the engine or the kernel
        return result

    def end_processes(self) -> None:
        """SIGKILL every process of the container but its init and lifetime command (a claw, its
        tools, whatever they left in the background), keeping the container alive. An exec this
        cuts returns its 137 at once: the stop was ours, so neither the wait for the engine to
        record a container's death nor the OOM probe applies. No exec since the last end (a claw
        that ran nothing in the container, such as `nop`): nothing to end, no exec spent on it."""
        with self._count_lock:
            begun = self._execs_begun
        if begun == self._execs_ended_at:
            return
        self._processes_ended_at = time.monotonic()
        self.exec(["sh", "-c", KILL_ALL_BUT_INIT], timeout_s=30, user="0")
        self._execs_ended_at = begun + 1  # the kill's own exec; one begun meanwhile keeps the next end

    def copy_in(self, host_path: str | Path, container_dir: str) -> None:
        """Copy a host file or folder into `container_dir` (created if missing), bytes exact."""
        host_path = Path(host_path)
        if not host_path.exists():
            raise FileNotFoundError(f"{host_path} does not exist on the host")
        with tar_transfer.pack_path(host_path, self._owner()) as tar:
            self._put_archive(container_dir, tar)

    def copy_out(self, container_path: str, host_dir: str | Path) -> Path:
        """Copy a container file or folder into `host_dir`; returns the host path of the copy."""
        with self._get_archive(container_path) as tar:
            tar_transfer.extract_all(tar, Path(host_dir))
        return Path(host_dir) / Path(container_path.rstrip("/")).name

    def copy_files_in(self, files: dict[str, Path], container_dir: str, owner: tuple[int, int]) -> None:
        """Copy host files to `container_dir/<relative name>`, owned by `owner` (uid, gid), with
        modes another user can read (see tar_transfer.pack_files). `container_dir` must exist."""
        with tar_transfer.pack_files(files, owner) as tar:
            self._container.put_archive(container_dir, tar)

    def copy_out_skipping_unsafe(self, container_path: str, host_dir: str | Path) -> list[str]:
        """Like copy_out, but links leading outside `host_dir` are left out (and named in the
        returned list) instead of failing the copy: for folders a claw wrote."""
        with self._get_archive(container_path) as tar:
            return tar_transfer.extract_skipping_unsafe(tar, Path(host_dir))

    def write_file(self, path: str, data: bytes, mode: int = 0o644) -> None:
        folder, name = tar_transfer.parent_and_name(path)
        self._put_archive(folder, tar_transfer.pack_bytes(name, data, mode, self._owner()))

    def read_file(self, path: str) -> bytes:
        with self._get_archive(path) as tar:
            return tar_transfer.single_file(tar, path)

    def teardown(self) -> None:
        """Remove the container (killing it if needed). Safe to call twice."""
        _LIVE.discard(self)
        try:
            self._container.remove(force=True)
        except docker.errors.NotFound:
            pass
        except docker.errors.APIError as exc:
            if "already in progress" not in str(exc):
                raise

    def _get_archive(self, container_path: str):
        try:
            chunks, _stat = self._container.get_archive(container_path)
        except docker.errors.NotFound as exc:
            raise FileNotFoundError(f"{container_path} does not exist in container {self.container_id[:12]}") from exc
        return tar_transfer.spool_chunks(chunks, self.config.max_copy_bytes, container_path)

    def _put_archive(self, container_dir: str, tar) -> None:
        """Unpack `tar` into `container_dir`, creating the folder only when it is missing."""
        try:
            self._container.put_archive(container_dir, tar)
            return
        except docker.errors.NotFound:
            pass
        self._make_dir(container_dir)
        if hasattr(tar, "seek"):
            tar.seek(0)
        self._container.put_archive(container_dir, tar)

    def _make_dir(self, container_dir: str) -> None:
        """mkdir -p as root (any path works), handed to the sandbox user so it can write there."""
        owner_spec = self.config.user or "0"
        result = self.exec(["sh", "-c", 'mkdir -p "$1" && chown "$2" "$1"', "sh", container_dir, owner_spec],
                           timeout_s=30, user="0")
        if result.exit_code != 0:
            raise PermissionError(f"cannot create {container_dir} in the container: {result.stderr.strip()}")

    def _owner(self) -> tuple[int, int] | None:
        return owner.numeric_user(self.config.user)

    def _raise_if_killed(self, result: ExecResult) -> None:
        reason = self._settled_death_reason()
        if reason:
            raise ContainerGone(reason, result)
        kills = self.oom_kill_count()
        if kills > self._oom_kills_seen:
            self._oom_kills_seen = kills
            raise OutOfMemory(f"OOM-killed: the command exceeded the {self.config.memory_mb} MB memory limit", result)

    def _raise_if_container_killed(self, result: ExecResult) -> None:
        reason = self._death_reason()
        if reason:
            raise ContainerGone(f"command outlived its deadline and could not be killed inside the container "
                                f"(process limit reached?); the container was killed: {reason}", result)

    def _settled_death_reason(self, window_s: float = DEATH_SETTLE_S) -> str | None:
        """`_death_reason` after a command died by SIGKILL: an exec cut by a container kill ends
        a moment before the engine records the stop (seen under load: still Running), and a
        killed container must not read as a command that merely printed nothing."""
        deadline = time.monotonic() + window_s
        while True:
            reason = self._death_reason()
            if reason or time.monotonic() >= deadline:
                return reason
            time.sleep(0.2)

    def _death_reason(self) -> str | None:
        """The engine's account of why the container stopped, or None if it is running."""
        try:
            self._container.reload()
        except docker.errors.NotFound:
            return "container was removed"
        state = self._container.attrs.get("State", {})
        if state.get("Running"):
            return None
        if state.get("OOMKilled"):
            return f"OOM-killed (memory limit {self.config.memory_mb} MB, exit code {state.get('ExitCode')})"
        detail = state.get("Error") or f"status {state.get('Status')}"
        return f"container stopped (exit code {state.get('ExitCode')}, {detail})"

    def oom_kill_count(self) -> int:
        """OOM kills so far inside this container's memory cgroup (v1 or v2; 0 when unreadable).

        exec() raises OutOfMemory when a command dies with 137; a caller whose command swallows
        a child's OOM kill (a test runner reporting a failure) can compare this before/after.
        """
        probe = run_exec(self._client.api, self.container_id,
                         ["sh", "-c", "cat /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events 2>/dev/null"],
                         10, workdir="/", env=None, user="0", max_output_bytes=4096)
        for line in probe.stdout.splitlines():
            if line.startswith("oom_kill "):
                return int(line.split()[1])
        return 1 if self._container.attrs.get("State", {}).get("OOMKilled") else 0


@atexit.register
def _teardown_leftovers() -> None:
    # Covers a forgotten teardown or an uncaught exception; a SIGKILL is the janitor's job.
    for sandbox in list(_LIVE):
        try:
            sandbox.teardown()
        except Exception:  # noqa: BLE001 - best effort while the interpreter exits
            pass


# The internal network has no way out, so every outside name fails, but only after Docker's
# resolver gave up: 20 s per lookup (A and AAAA, 5 s x 2 tries each) that a claw's probe or a
# package manager without the proxy spends doing nothing. One try of 1 s fails it in 2 s.
ISOLATED_DNS_OPTIONS = ["timeout:1", "attempts:1"]


def _run_kwargs(config: SandboxConfig, client) -> dict:
    labels = owner.container_labels(config.labels)  # sweep, cell and attempt of the open scope, then owner
    hosts = dict(config.extra_hosts)
    kwargs: dict = {"shm_size": f"{config.shm_size_mb}m"} if config.shm_size_mb else {}
    if config.network in ("gateway", "bridge"):
        network_name, host_ip = network_for(config.network, client)
        kwargs["network"] = network_name
        hosts.setdefault(GATEWAY_HOSTNAME, host_ip)
        hosts = {name: host_ip if ip == HOST_GATEWAY else ip for name, ip in hosts.items()}
    else:
        hosts = {name: ip for name, ip in hosts.items() if ip != HOST_GATEWAY}  # no network: no host to reach
    if config.network == "gateway":
        kwargs["dns_opt"] = ISOLATED_DNS_OPTIONS
    else:
        kwargs["network_mode"] = config.network
    return dict(
        command=["sleep", str(config.lifetime_seconds)], init=True,
        labels=labels, nano_cpus=int(config.cpus * 1e9), mem_limit=f"{config.memory_mb}m",
        memswap_limit=f"{config.memory_mb}m", pids_limit=config.pids_limit, user=_main_user(config),
        working_dir=config.workdir, environment=config.env, volumes=config.volumes,
        extra_hosts=hosts, **host_config(config.privileges, config.cap_add), **kwargs,
    )


def _main_user(config: SandboxConfig) -> str | None:
    # Under no-new-privileges a container whose main process is not root gives root execs no
    # capabilities at all (set-up could not chown). Only `sleep` runs as the main process; every
    # exec still runs as config.user unless it asks for root.
    return "0" if config.user else None
