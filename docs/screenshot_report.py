"""Screenshot of a report for the README: `python docs/screenshot_report.py REPORT/index.html docs/demo-report.png`.

Debian's Chromium driven by Playwright's Python package, as tests/browser does (no browser
download); the first screenful and a half, where the leaderboard and the Pareto plot sit."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("CLAWMARK_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def screenshot(index: Path, png: Path, width: int = 1280, height: int = 1500) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(index.resolve().as_uri())
        page.screenshot(path=str(png), clip={"x": 0, "y": 0, "width": width, "height": height})
        browser.close()


if __name__ == "__main__":
    screenshot(Path(sys.argv[1]), Path(sys.argv[2]))
