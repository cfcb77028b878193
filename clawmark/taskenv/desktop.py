"""The desktop of a headed task: started in a running task container of the desktop image
(`images/desktop/`), screenshots out of it, and where a person watches it (noVNC).

The image's `clawmark-desktop-start` brings up Xvfb :99 (1440x900), openbox + tint2, x11vnc
and noVNC (and Chromium with CDP on 127.0.0.1:9222 when asked) as detached processes of the
executor user, and returns once each answers. A task that is not headed never pays for it:
nothing here runs unless `wants_desktop(task)` (`headed: true`, or `auto` with a GUI need).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from clawmark.catalog.gui import gui_need
from clawmark.stopwatch import Stopwatch
from clawmark.taskenv.errors import TaskEnvError

DESKTOP_RECIPE = "desktop"
DISPLAY = ":99"
NOVNC_PORT = 6080
# reconnect: a viewer whose first connection fails (a loaded machine) tries again instead of
# leaving a person, or a test, on "Failed to connect".
NOVNC_QUERY = "autoconnect=1&reconnect=1&reconnect_delay=1000&resize=scale"
CDP_PORT = 9222
STATE_DIR = "/tmp/clawmark-desktop"
SHOT_PATH = "/tmp/clawmark-screenshot.png"
VIDEO_PATH = f"{STATE_DIR}/recording.mp4"
# recording: low|high -> (frames per second, x264 CRF, video size), upstream's tiers: the whole
# 1440x900 display, at 10 fps, or at 5 fps scaled to 1280x720. Fragmented MP4 stays playable
# even when the container dies before ffmpeg finishes the file.
RECORDING = {"low": (5, 35, "1280:720"), "high": (10, 23, "1440:900")}
RECORD_SCRIPT = f"""set -e
fps="$1"; crf="$2"; size="$3"; mkdir -p {STATE_DIR}
setsid nohup ffmpeg -loglevel error -nostdin -f x11grab -draw_mouse 1 -framerate "$fps" -video_size 1440x900 \\
  -i {DISPLAY} -vf "scale=$size" -c:v libx264 -preset ultrafast -crf "$crf" -pix_fmt yuv420p \\
  -movflags +frag_keyframe+empty_moov -y {VIDEO_PATH} > {STATE_DIR}/ffmpeg.log 2>&1 < /dev/null &
echo $! > {STATE_DIR}/ffmpeg.pid
"""
STOP_RECORD_SCRIPT = f"""pid="$(cat {STATE_DIR}/ffmpeg.pid 2>/dev/null)" || exit 0
kill -INT "$pid" 2>/dev/null
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.1; done
kill -KILL "$pid" 2>/dev/null; exit 0
"""


class DesktopFailed(TaskEnvError):
    """The desktop of a headed task did not come up (its logs are in the message)."""


class Desktop(BaseModel):
    display: str = DISPLAY
    novnc_url: str
    cdp_url: str | None = None
    start_s: float


def wants_desktop(task) -> bool:
    """`headed: true` always, `false` never, `auto` when the task declares a GUI need."""
    headed = task.spec.headed
    return headed is True or (headed == "auto" and gui_need(task) is not None)


def start_desktop(sandbox, browser: bool = False, timeout_s: float = 120) -> Desktop:
    """Bring the desktop up as the executor user; raises DesktopFailed with its logs."""
    watch = Stopwatch()
    argv = ["clawmark-desktop-start", *(["--browser"] if browser else [])]
    result = sandbox.exec(argv, timeout_s=timeout_s, workdir="/")
    if result.exit_code != 0:
        logs = sandbox.exec(f"tail -n 5 {STATE_DIR}/*.log", timeout_s=30).stdout
        raise DesktopFailed(f"the desktop did not start: {(result.stderr or result.stdout).strip()[:300]}; "
                            f"logs: {logs.strip()[-600:]}")
    return Desktop(novnc_url=f"http://{container_ip(sandbox)}:{NOVNC_PORT}/vnc.html?{NOVNC_QUERY}",
                   cdp_url=f"http://127.0.0.1:{CDP_PORT}" if browser else None,
                   start_s=watch.elapsed())


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


def start_recording(sandbox, quality: str) -> None:
    """Record the display (`recording: low|high`) until stop_recording; `none` records nothing."""
    if quality == "none":
        return
    fps, crf, size = RECORDING[quality]
    result = sandbox.exec(["bash", "-c", RECORD_SCRIPT, "record", str(fps), str(crf), size], timeout_s=30, workdir="/")
    if result.exit_code != 0:
        raise DesktopFailed(f"screen recording did not start: {(result.stderr or result.stdout).strip()[:300]}")


def stop_recording(sandbox, dest: Path) -> Path | None:
    """End the recording and copy the video to `dest` (host); None when nothing was recorded."""
    sandbox.exec(["bash", "-c", STOP_RECORD_SCRIPT], timeout_s=30, workdir="/")
    if sandbox.exec(["test", "-s", VIDEO_PATH], timeout_s=30).exit_code != 0:
        return None
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(sandbox.read_file(VIDEO_PATH))
    return dest


def container_ip(sandbox) -> str:
    """The container's address on its (first) network: the host reaches noVNC there."""
    sandbox._container.reload()  # noqa: SLF001 - the Sandbox keeps the docker object; no public accessor yet
    networks = sandbox._container.attrs["NetworkSettings"]["Networks"]  # noqa: SLF001
    addresses = [n.get("IPAddress") for n in networks.values() if n.get("IPAddress")]
    if not addresses:
        raise DesktopFailed(f"container {sandbox.container_id[:12]} has no IP address to serve noVNC on")
    return addresses[0]
