"""The headed runtime for real: the desktop image starts its desktop in a task container, a
screenshot shows it, and a person can watch it through noVNC in a browser."""

from __future__ import annotations

import io

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from PIL import Image

from clawmark.taskenv.desktop import screenshot, start_desktop
from tests.support.desktop_fixtures import desktop_image, headed_env  # noqa: F401 - fixture

pytestmark = [pytest.mark.docker, pytest.mark.browser]
CANVAS_SHOWS_THE_DESKTOP = """() => {
  const c = document.querySelector('#noVNC_container canvas');
  if (!c || c.width !== 1440 || c.height !== 900) return false;
  const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const seen = new Set();
  for (let i = 0; i < px.length && seen.size < 50; i += 4 * 997) seen.add(px[i] << 16 | px[i + 1] << 8 | px[i + 2]);
  return seen.size >= 3;
}"""
NOVNC_STATE = """() => ({status: document.querySelector('#noVNC_status')?.textContent || '',
  canvas: (c => c ? `${c.width}x${c.height}` : 'none')(document.querySelector('#noVNC_container canvas'))})"""
LOADS, WAIT_MS = 3, 40_000


@pytest.fixture
def headed_sandbox(desktop_image, tmp_path):
    with headed_env(desktop_image, tmp_path, "desktop_watch") as sandbox:
        yield sandbox


def test_the_desktop_starts_and_a_screenshot_shows_it(headed_sandbox, tmp_path, artifacts_dir):
    desktop = start_desktop(headed_sandbox, browser=True)
    version = headed_sandbox.exec("curl -s 127.0.0.1:9222/json/version", timeout_s=30).stdout
    assert '"Browser": "Chrome/' in version  # Chromium answers CDP for claws that drive it
    windows = headed_sandbox.exec("DISPLAY=:99 wmctrl -l", timeout_s=30).stdout
    assert "tint2" in windows and "Chromium" in windows
    shot = screenshot(headed_sandbox, tmp_path / "shot.png")
    (artifacts_dir / "desktop-screenshot.png").write_bytes(shot.read_bytes())
    image = Image.open(io.BytesIO(shot.read_bytes()))
    assert image.size == (1440, 900)
    assert len(image.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 10  # not a blank frame
    assert desktop.novnc_url.endswith(":6080/vnc.html?autoconnect=1&reconnect=1&reconnect_delay=1000&resize=scale")


def test_a_person_can_watch_through_novnc(headed_sandbox, page, artifacts_dir):
    desktop = start_desktop(headed_sandbox)
    headed_sandbox.exec("DISPLAY=:99 setsid xterm -geometry 100x30+200+150 -e 'echo watched; sleep 600' "
                        ">/dev/null 2>&1 &", timeout_s=30)
    _watch(page, desktop.novnc_url, headed_sandbox)
    page.screenshot(path=str(artifacts_dir / "desktop-novnc.png"))
    # Request failures are left out: a container starting elsewhere on the host changes the network
    # under the browser (net::ERR_NETWORK_CHANGED on an icon) without saying anything about noVNC.
    assert not [p for p in page.problems if p.startswith("page error")]


def _watch(page, url, sandbox) -> None:
    """Open the viewer until its canvas shows the desktop, reloading as a person would. Chromium
    drops what is in flight when the host's addresses change (net::ERR_NETWORK_CHANGED, each time
    another test makes a Docker network); a viewer whose own scripts were dropped never starts."""
    tries = []
    for _ in range(LOADS):
        page.goto(url)
        try:
            page.wait_for_function(CANVAS_SHOWS_THE_DESKTOP, timeout=WAIT_MS)
            return
        except PlaywrightTimeout:
            tries.append({**page.evaluate(NOVNC_STATE), "problems": list(page.problems)})
            page.problems.clear()
    logs = sandbox.exec("tail -n 20 /tmp/clawmark-desktop/x11vnc.log /tmp/clawmark-desktop/novnc.log",
                        timeout_s=30).stdout
    raise AssertionError(f"noVNC never showed the desktop in {LOADS} loads of {WAIT_MS // 1000} s: {tries}\n{logs}")
