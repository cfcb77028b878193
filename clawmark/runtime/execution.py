"""Run one command in a running container with a host-side deadline and bounded output.

The engine has no exec timeout, so the host enforces one: the command runs with a marker in
its environment; on the deadline a second exec (as root) kills every process carrying the
marker (children that double-fork or call setsid keep their environment) together with their
process groups and sessions (which catches children that scrub their environment), then the
stream is closed. When even that cannot run (the process limit is exhausted), the container
itself is killed: the deadline holds, and the caller sees ContainerGone.
"""

from __future__ import annotations

import shlex
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field

from docker.utils.socket import STDERR, frames_iter

from clawmark.stopwatch import Stopwatch

KILL_GRACE_S = 5.0
POLL_S = 1.0
DRAIN_S = 0.5
LATE_OUTPUT_S = 60.0
MARKER_VAR = "CLAWMARK_EXEC_ID"


@dataclass
class ExecResult:
    """What one command did. `exit_code` is None when it was killed on its deadline."""

    exit_code: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool
    truncated: bool

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


@dataclass
class _BoundedBuffer:
    """Keeps the head and the tail of a stream (test summaries live at the end)."""

    cap: int
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def add(self, data: bytes) -> None:
        room = self.cap // 2 - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        excess = len(self.tail) - (self.cap - self.cap // 2)
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        cut = f"\n[... clawmark: {self.dropped} bytes cut ...]\n".encode() if self.dropped else b""
        return bytes(self.head + cut + self.tail).decode("utf-8", errors="replace")


def run_exec(api, container_id: str, argv: list[str], timeout_s: float, *, workdir: str | None,
             env: dict[str, str] | None, user: str | None, max_output_bytes: int) -> ExecResult:
    """Run `argv` and return its result; the deadline kills the whole process tree."""
    token = uuid.uuid4().hex
    exec_id = api.exec_create(container_id, argv, stdout=True, stderr=True, workdir=workdir,
                              environment={**(env or {}), MARKER_VAR: token}, user=user or "")["Id"]
    out, err = _BoundedBuffer(max_output_bytes), _BoundedBuffer(max_output_bytes)
    watch = Stopwatch()
    sock = api.exec_start(exec_id, socket=True)
    reader = threading.Thread(target=_pump, args=(sock, out, err), daemon=True)
    reader.start()
    timed_out = not _wait(api, container_id, exec_id, token, reader, watch.start + timeout_s)
    if timed_out:
        # The kill runs beside the wait so a frozen container cannot stretch the deadline.
        threading.Thread(target=_kill_tree, args=(api, container_id, token), daemon=True).start()
        reader.join(KILL_GRACE_S)
        if reader.is_alive():
            _kill_container(api, container_id)  # e.g. a fork bomb left no pid for the kill exec
            reader.join(KILL_GRACE_S)
    _close(sock)
    reader.join(1.0)
    exit_code = None if timed_out else _exit_code(api, exec_id)
    return ExecResult(exit_code, out.text(), err.text(), watch.elapsed(), timed_out, bool(out.dropped or err.dropped))


def _wait(api, container_id: str, exec_id: str, token: str, reader: threading.Thread, deadline: float) -> bool:
    """Wait for the output to end or the command to exit; False when the deadline passed.

    A background child that inherited stdout (`server &`) keeps the stream open after the
    command exits; waiting for end-of-stream would then always hit the deadline. But the engine
    may report the exit before it has copied the last output (a loaded machine: `git diff`'s two
    lines arrived after the 0.5 s drain and the step read an empty stdout): when no process of
    the command is left to hold the stream, it is waited for to its end.
    """
    while (remaining := deadline - time.monotonic()) > 0:
        reader.join(min(POLL_S, remaining))
        if not reader.is_alive():
            return True
        if not api.exec_inspect(exec_id).get("Running"):
            reader.join(DRAIN_S)  # let the last bytes the command wrote arrive
            if reader.is_alive() and not _marked_processes_left(api, container_id, token):
                reader.join(max(0.0, min(LATE_OUTPUT_S, deadline - time.monotonic())))
            return True
    return not reader.is_alive()


# Whether the process /proc/$d carries the marker $m (set by _marker) in its environment.
_CARRIES_MARKER = "tr '\\000' '\\n' < \"$d/environ\" 2>/dev/null | grep -qxF \"$m\""


def _marker(token: str) -> str:
    return f"m={shlex.quote(f'{MARKER_VAR}={token}')};"


def _marked_processes_left(api, container_id: str, token: str) -> bool:
    """Whether a process carrying the command's marker still runs (a background child); True
    when it cannot be told (the container went away): the short drain then stands."""
    script = f"{_marker(token)} for d in /proc/[0-9]*; do {_CARRIES_MARKER} && exit 0; done; exit 1"
    try:
        probe = api.exec_create(container_id, ["sh", "-c", script], user="0")["Id"]
        api.exec_start(probe)
        return api.exec_inspect(probe).get("ExitCode") != 1
    except Exception:  # noqa: BLE001 - the container may be gone; the caller inspects it next
        return True


def _pump(sock, out: _BoundedBuffer, err: _BoundedBuffer) -> None:
    try:
        for stream, data in frames_iter(sock, tty=False):
            (err if stream == STDERR else out).add(data)
    except (OSError, ValueError):
        pass  # the socket was closed under us after the deadline


def _kill_tree(api, container_id: str, token: str) -> None:
    """Kill every process carrying the marker, plus its process group and session."""
    script = (
        f"{_marker(token)} for round in 1 2 3; do for d in /proc/[0-9]*; do {_CARRIES_MARKER} || continue; "
        "set -- $(sed 's/.*) //' \"$d/stat\" 2>/dev/null); "
        "[ \"${3:-0}\" -gt 1 ] && kill -9 -- \"-$3\" 2>/dev/null; "
        "[ \"${4:-0}\" -gt 1 ] && pkill -9 -s \"$4\" 2>/dev/null; "
        "kill -9 \"${d#/proc/}\" 2>/dev/null; "
        "done; done; true"
    )
    try:
        kill_id = api.exec_create(container_id, ["sh", "-c", script], user="0")["Id"]
        api.exec_start(kill_id)
    except Exception:  # noqa: BLE001 - the container may be gone; the caller inspects it next
        pass


def _kill_container(api, container_id: str) -> None:
    try:
        api.kill(container_id)
    except Exception:  # noqa: BLE001 - already dead is fine; the caller inspects it next
        pass


def _close(sock) -> None:
    raw = getattr(sock, "_sock", sock)
    for action in (lambda: raw.shutdown(socket.SHUT_RDWR), raw.close, sock.close):
        try:
            action()
        except (OSError, AttributeError):
            pass


def _exit_code(api, exec_id: str) -> int | None:
    for _ in range(50):  # the exit code lands a moment after the stream ends
        info = api.exec_inspect(exec_id)
        if not info.get("Running"):
            return info.get("ExitCode")
        time.sleep(0.02)
    return None
