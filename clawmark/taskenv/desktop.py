"""The desktop of a headed task: started in a running task container of the desktop image
(`images/desktop/`), screenshots out of it, and where a person watches it (noVNC).

The image's `clawmark-desktop-start` brings up Xvfb :99 (1440x900), openbox + tint2, x11vnc
and noVNC (and Chromium with CDP on 127.0.0.1:9222 when asked) as detached processes of the
executor user, and returns once each answers. A task that is not headed never pays for it:
nothing here runs unless `wants_desktop(task)`.
"""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import BaseModel

from clawmark.taskenv.errors import TaskEnvError

DESKTOP_RECIPE = "desktop"
DISPLAY = ":99"
NOVNC_PORT = 6080
CDP_PORT = 9222
STATE_DIR = "/tmp/clawmark-desktop"
SHOT_PATH = "/tmp/clawmark-screenshot.png"


class DesktopFailed(TaskEnvError):
    """The desktop of a headed task did not come up (its logs are in the message)."""


class Desktop(BaseModel):
    display: str = DISPLAY
    novnc_url: str
    cdp_url: str | None = None
    start_s: float


def wants_desktop(task) -> bool:
    """Headed only when the task says `headed: true` (upstream's `auto` declares no GUI need)."""
    return task.spec.headed is True


def start_desktop(sandbox, browser: bool = False, timeout_s: float = 120) -> Desktop:
    """Bring the desktop up as the executor user; raises DesktopFailed with its logs."""
    started = time.monotonic()
    argv = ["clawmark-desktop-start", *(["--browser"] if browser else [])]
    result = sandbox.exec(argv, timeout_s=timeout_s, workdir="/")
    if result.exit_code != 0:
        logs = sandbox.exec(f"tail -n 5 {STATE_DIR}/*.log", timeout_s=30).stdout
        raise DesktopFailed(f"the desktop did not start: {(result.stderr or result.stdout).strip()[:300]}; "
                            f"logs: {logs.strip()[-600:]}")
    return Desktop(novnc_url=f"http://{container_ip(sandbox)}:{NOVNC_PORT}/vnc.html?autoconnect=1&resize=scale",
                   cdp_url=f"http://127.0.0.1:{CDP_PORT}" if browser else None,
                   start_s=round(time.monotonic() - started, 3))


def screenshot(sandbox, dest: Path) -> Path:
    """The whole display as a PNG at `dest` (host)."""
    result = sandbox.exec(["scrot", "--overwrite", SHOT_PATH], timeout_s=60, workdir="/",
                          env={"DISPLAY": DISPLAY})
    if result.exit_code != 0:
        raise DesktopFailed(f"screenshot failed: {(result.stderr or result.stdout).strip()[:300]}")
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(sandbox.read_file(SHOT_PATH))
    return dest


def container_ip(sandbox) -> str:
    """The container's address on its (first) network: the host reaches noVNC there."""
    sandbox._container.reload()  # noqa: SLF001 - the Sandbox keeps the docker object; no public accessor yet
    networks = sandbox._container.attrs["NetworkSettings"]["Networks"]  # noqa: SLF001
    addresses = [n.get("IPAddress") for n in networks.values() if n.get("IPAddress")]
    if not addresses:
        raise DesktopFailed(f"container {sandbox.container_id[:12]} has no IP address to serve noVNC on")
    return addresses[0]
