"""The agent-browser-control base skill for real: `agent-browser` starts a headless Chromium on
its own (no desktop started), the way upstream's skills drive theirs: open a page the task
serves, list refs, fill and click by ref, read the page, save a screenshot."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.integration.desktop_support import BASE_SKILLS, desktop_image, headed_env  # noqa: F401 - fixture

pytestmark = pytest.mark.docker

FORM = """<html><head><title>Sign-up</title></head><body><h1>Newsletter</h1>
<input id="email" placeholder="Email"><button id="go">Subscribe</button><p id="out"></p>
<script>document.getElementById('go').addEventListener('click', () => {
  document.getElementById('out').innerText = 'Subscribed ' + document.getElementById('email').value; });</script>
</body></html>
"""
SITE = "cd /tmp_workspace/clawbench/sources && (setsid python3 -m http.server 8099 --bind 127.0.0.1 >/dev/null 2>&1 &) && sleep 1"


def test_agent_browser_drives_a_headless_chromium_by_refs(desktop_image, tmp_path):  # noqa: F811
    with headed_env(desktop_image, tmp_path, "agent_browser", files={"sources/form.html": FORM},
                    base_skills=[BASE_SKILLS / "agent-browser-control"]) as sandbox:
        sandbox.exec(SITE, timeout_s=30)

        def browse(command: str) -> str:
            result = sandbox.exec(f"agent-browser {command}", timeout_s=120)
            assert result.exit_code == 0, (command, result.stderr)
            return result.stdout.strip()

        assert browse("open http://127.0.0.1:8099/form.html") == "Sign-up"
        snapshot = browse("snapshot").splitlines()
        assert snapshot[0] == "page: Sign-up (http://127.0.0.1:8099/form.html)"
        assert snapshot[1:] == ['- heading "Newsletter" [ref=@e1]', '- textbox "Email" [ref=@e2]',
                                '- button "Subscribe" [ref=@e3]']
        browse('fill @e2 "ada@example.org"')
        browse("click @e3")
        assert browse("get text '#out'") == "Subscribed ada@example.org"
        assert browse("screenshot /tmp_workspace/results/page.png") == "/tmp_workspace/results/page.png"
        shot = Image.open(io.BytesIO(sandbox.read_file("/tmp_workspace/results/page.png")))
        assert shot.format == "PNG" and shot.size[0] > 600
        headless = sandbox.exec("pgrep -u 1000 -f -- '--headless' >/dev/null && echo yes; pgrep -x Xvfb || echo no-display",
                                timeout_s=30)
        assert headless.stdout.split() == ["yes", "no-display"]
        stale = sandbox.exec("agent-browser click @e9", timeout_s=60)
        assert stale.exit_code == 1 and "no element matches @e9 (take a new snapshot)" in stale.stderr
