"""A real browser for page tests: Debian's Chromium driven by Playwright's Python package.

No browser is downloaded: `make test` installs Debian's chromium (scripts/browser-up.sh) and the
tests launch it by path. A missing browser fails the tests, never skips them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.paths import REPO

CHROMIUM = os.environ.get("CLAWMARK_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
ARTIFACTS = REPO / ".clawmark" / "test-artifacts"


# Module scope, not session: Playwright's sync API keeps an event loop running on the main thread
# while it is open, and a pool worker that later runs a flow or asyncio test beside it fails with
# "asyncio.run() cannot be called from a running event loop".
@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: run `bash scripts/browser-up.sh` (make test does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    """A fresh page that records console errors and failed requests in `page.problems`."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None)
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on("requestfailed", lambda req: problems.append(f"request failed: {req.url}"))
    page.problems = problems
    yield page
    page.close()


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
