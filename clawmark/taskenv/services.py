"""Start a task's services as root from their private folder, before the first turn.

Oneshot services block until they exit (deadline: service_timeout_s); background services are
detached (setsid + nohup) with their output in LOGS_DIR/services/<name>.log. A background
service counts as ready when it listens on the port its start command names (`--port N`,
`-p N`, `PORT=N`, `http.server N`), or, when it names none, when it is still alive (or exited
0) after a short grace. Services run with umask 000 so what they create under /tmp_workspace
(FIFOs, seeded stores) stays usable by the non-root executor.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from clawmark.taskenv.errors import ServiceFailed
from clawmark.taskenv.container_layout import LOGS_DIR, SERVICE_STATE_DIR

SERVICE_LOGS = f"{LOGS_DIR}/services"
LAUNCHER = f"{SERVICE_STATE_DIR}/launch.sh"
PORT_PATTERN = re.compile(r"(?:--port[= ]|-p\s+|\bPORT=|http\.server\s+)(\d{2,5})\b")
NO_PORT_GRACE_S = 1.0
POLL_S = 0.5
LISTEN_STATE = "0A"

LAUNCHER_TEXT = f"""#!/bin/bash
# launch.sh MODE NAME FOLDER START: run one service as root from its folder.
mode="$1"; name="$2"; folder="$3"; start="$4"; log="{SERVICE_LOGS}/$name.log"
umask 000
mkdir -p "$folder" "{SERVICE_LOGS}"
cd "$folder" || exit 97
if [ "$mode" = oneshot ]; then exec bash -lc "$start" > "$log" 2>&1 < /dev/null; fi
setsid nohup bash -c 'bash -lc "$1"; echo $? > "$2"' service "$start" "{SERVICE_STATE_DIR}/$name.exit" \\
  > "$log" 2>&1 < /dev/null &
echo $! > "{SERVICE_STATE_DIR}/$name.pid"
"""


def start_services(sandbox, services: list, folders: dict[str, str], config, logs_dir: Path) -> None:
    """These services (a task's, in declaration order); raises ServiceFailed with the log saved."""
    if not services:
        return
    sandbox.write_file(LAUNCHER, LAUNCHER_TEXT.encode(), mode=0o700)
    sandbox.exec(["chown", "0:0", LAUNCHER], timeout_s=30, user="0")
    for service in services:
        spec = service.spec
        if spec.oneshot:
            _run_oneshot(sandbox, spec, folders[spec.name], config.service_timeout_s, logs_dir)
        else:
            _launch_background(sandbox, spec, folders[spec.name], config.service_ready_s, logs_dir)


def save_service_logs(sandbox, logs_dir: Path) -> None:
    """Copy LOGS_DIR/services out to logs_dir/services (best effort: the container may be gone)."""
    try:
        sandbox.copy_out_skipping_unsafe(SERVICE_LOGS, logs_dir)
    except Exception:  # noqa: BLE001 - a dead container must not hide the attempt's own error
        pass


def declared_ports(start: str) -> list[int]:
    return sorted({int(p) for p in PORT_PATTERN.findall(start) if 0 < int(p) < 65536})


def listening_ports(proc_net_tcp: str) -> set[int]:
    """Ports in LISTEN state in /proc/net/tcp{,6} text."""
    ports = set()
    for line in proc_net_tcp.splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[3] == LISTEN_STATE and ":" in fields[1]:
            ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def _run_oneshot(sandbox, spec, folder: str, timeout_s: float, logs_dir: Path) -> None:
    result = sandbox.exec([LAUNCHER, "oneshot", spec.name, folder, spec.start], timeout_s=timeout_s, user="0", workdir="/")
    if result.timed_out:
        raise ServiceFailed(spec.name, f"(oneshot) ran past its {timeout_s:g}s timeout and was killed",
                            _saved_log(sandbox, spec.name, logs_dir))
    if result.exit_code != 0:
        raise ServiceFailed(spec.name, f"(oneshot) exited with code {result.exit_code}",
                            _saved_log(sandbox, spec.name, logs_dir))


def _launch_background(sandbox, spec, folder: str, ready_s: float, logs_dir: Path) -> None:
    launched = sandbox.exec([LAUNCHER, "background", spec.name, folder, spec.start], timeout_s=60, user="0", workdir="/")
    if launched.exit_code != 0:
        raise ServiceFailed(spec.name, f"could not be launched: {(launched.stderr or launched.stdout).strip()[:300]}",
                            _saved_log(sandbox, spec.name, logs_dir))
    ports = declared_ports(spec.start)
    deadline = time.monotonic() + (ready_s if ports else min(NO_PORT_GRACE_S, ready_s))
    while True:
        exit_code, listening = _probe(sandbox, spec.name)
        if exit_code is not None and exit_code != 0:
            raise ServiceFailed(spec.name, f"exited with code {exit_code} before the first turn",
                                _saved_log(sandbox, spec.name, logs_dir))
        if exit_code == 0 or (ports and set(ports) <= listening):
            return
        if time.monotonic() >= deadline:
            break
        time.sleep(POLL_S)
    if ports:
        raise ServiceFailed(spec.name, f"never became ready: nothing listened on port(s) "
                            f"{', '.join(map(str, ports))} within {ready_s:g}s", _saved_log(sandbox, spec.name, logs_dir))


def _probe(sandbox, name: str) -> tuple[int | None, set[int]]:
    script = f"cat {SERVICE_STATE_DIR}/{name}.exit 2>/dev/null; echo ---; cat /proc/net/tcp /proc/net/tcp6 2>/dev/null"
    out = sandbox.exec(["sh", "-c", script], timeout_s=30, user="0", workdir="/").stdout
    status, _, tables = out.partition("---")
    status = status.strip()
    return (int(status) if status.lstrip("-").isdigit() else None), listening_ports(tables)


def _saved_log(sandbox, name: str, logs_dir: Path) -> Path | None:
    target = logs_dir / "services"
    try:
        sandbox.copy_out_skipping_unsafe(f"{SERVICE_LOGS}/{name}.log", target)
    except Exception:  # noqa: BLE001 - the failure being reported matters more than its log
        return None
    return target / f"{name}.log"
