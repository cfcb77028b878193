"""Base skills and the reference claw's browser tool, for real in a headed task container of
the desktop image: Chromium over CDP, screenshots, LibreOffice, user-level apt, web search."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from clawmark.claws.browser_tool import BrowserToolBox
from clawmark.claws.tools import ToolConfig
from tests.support.desktop_fixtures import BASE_SKILLS, desktop_image, headed_env  # noqa: F401 - fixture

pytestmark = pytest.mark.docker

SHOP = """<html><head><title>Price list</title></head><body><h1 id="price">Total: 42 EUR</h1>
<button id="more">More</button><input id="q">
<script>document.getElementById('more').addEventListener('click', () => {
  document.getElementById('price').innerText = 'Total: 43 EUR'; });</script></body></html>
"""
RESULTS = """<html><body>
<div class="result"><a class="result__a" href="/l/?uddg=https%3A%2F%2Fdocs.test%2Fpage">Docs page</a>
<a class="result__snippet">The answer is here.</a></div>
<div class="result"><a class="result__a" href="https://b.test/">Second</a></div></body></html>
"""
SITE = "cd /tmp_workspace/clawbench/sources && (setsid python3 -m http.server 8099 --bind 127.0.0.1 >/dev/null 2>&1 &) && sleep 1"
SKILLS = [BASE_SKILLS / name for name in ("browser-control", "desktop-control", "apt-package-manager", "web-search")]


def test_the_browser_tool_drives_chromium_and_shows_screenshots(desktop_image, tmp_path):
    with headed_env(desktop_image, tmp_path, "desktop_browser", files={"sources/shop.html": SHOP}) as sandbox:
        sandbox.exec(SITE, timeout_s=30)
        tools = BrowserToolBox(sandbox, "/tmp_workspace", ToolConfig(), "1000:1000")
        assert tools.run("browser", {"action": "open", "target": "http://127.0.0.1:8099/shop.html"}) == "Price list"
        assert "Total: 42 EUR" in tools.run("browser", {"action": "text"})  # the desktop was started on demand
        assert tools.run("browser", {"action": "click", "target": "#more"}).startswith("button#more")
        assert "Total: 43 EUR" in tools.run("browser", {"action": "text"})
        assert "typed into input" in tools.run("browser", {"action": "type", "target": "#q", "text": "hi"})
        assert tools.run("browser", {"action": "eval", "target": "document.getElementById('q').value"}) == '"hi"'
        assert "no element matches #absent" in tools.run("browser", {"action": "click", "target": "#absent"})
        assert "attached to the next message" in tools.run("browser", {"action": "screenshot"})
        images = tools.take_images()
        assert len(images) == 1 and images[0]["image_url"]["url"].startswith("data:image/png;base64,")
        assert sandbox.exec("pgrep -u 1000 -x chromium >/dev/null && echo up", timeout_s=30).stdout.strip() == "up"


def test_base_skills_work_for_the_executor(desktop_image, tmp_path):
    files = {"sources/results.html": RESULTS, "sources/table.csv": "city,visits\nLyon,3\nNice,5\n"}
    with headed_env(desktop_image, tmp_path, "desktop_skills", files=files, base_skills=SKILLS,
                    network_policy="registries-only") as sandbox:
        sandbox.exec(SITE, timeout_s=30)
        up = sandbox.exec("clawmark-desktop-start", timeout_s=120)
        assert up.exit_code == 0, up.stderr
        shot = sandbox.exec("/root/skills/desktop-control/scripts/screenshot.sh /tmp_workspace/results/s.png", timeout_s=60)
        assert shot.stdout.strip() == "/tmp_workspace/results/s.png"
        assert Image.open(io.BytesIO(sandbox.read_file("/tmp_workspace/results/s.png"))).size == (1440, 900)

        opened = sandbox.exec("/root/skills/desktop-control/scripts/open-document.sh "
                              "/tmp_workspace/clawbench/sources/table.csv", timeout_s=150)
        assert opened.stdout.strip() == "opened table.csv", opened.stderr
        assert "table.csv" in sandbox.exec("DISPLAY=:99 wmctrl -l", timeout_s=30).stdout

        search = sandbox.exec("SEARCH_URL=http://127.0.0.1:8099/results.html NO_PROXY=127.0.0.1 "
                              "python3 /root/skills/web-search/scripts/search.py --max 1 'the question'", timeout_s=60)
        assert search.stdout.split("\n")[:3] == ["1. Docs page", "   https://docs.test/page", "   The answer is here."]

        tree = sandbox.exec('eval "$(/root/skills/apt-package-manager/scripts/apt-user-install.sh tree)" '
                            "&& command -v tree && id -u", timeout_s=300)
        assert tree.stdout.split() == ["/home/claw/.local/apt/usr/bin/tree", "1000"], tree.stderr
