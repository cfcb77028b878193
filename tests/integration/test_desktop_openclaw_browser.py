"""OpenClaw (the real npm package) drives the desktop's Chromium in a headed task: its `browser`
tool, attached over CDP to the Chromium the desktop started (port 9222, never one of its own),
opens and reads a page served by the task's own service. What OpenClaw handed back to the model
(its exported trajectory) must hold the page's text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawmark.catalog.package import load_task
from clawmark.results import Status
from tests.support.closed_loop_fixtures import attempt, cassettes, gateway, store  # noqa: F401
from tests.support.desktop_fixtures import desktop_image  # noqa: F401 - fixture
from tests.support.taskenv_fixtures import make_package

pytestmark = pytest.mark.docker
PAGE = "<html><head><title>Quarter report</title></head><body><p>Q3 revenue: 4217 units</p></body></html>\n"
SERVICE = {"name": "site", "path": "site", "start": "python3 -m http.server 8099 --bind 127.0.0.1"}
URL = "http://127.0.0.1:8099/index.html"
PASS = json.dumps({"verdict": "pass", "attempt_state": "complete_and_passed", "recoverable": False, "score": 1.0,
                   "confidence": "high", "rationale": "read the page", "missing_artifacts": [], "guidance_tags": []})


def test_openclaw_reads_a_task_service_page_through_the_desktops_chromium(
        desktop_image, store, gateway, cassettes, tmp_path):  # noqa: F811
    package = make_package(tmp_path, "oc_browser", headed=True, services=[SERVICE],
                           files={"services/site/index.html": PAGE})
    executor = cassettes("cl-oc-browser", [
        {"content": "Opening the report.", "tool_calls": [{"name": "browser", "arguments": {"action": "open", "targetUrl": URL}}]},
        {"content": "Reading it.", "tool_calls": [{"name": "browser", "arguments": {"action": "text"}}]},
        {"content": "PAGE-READ: the report says Q3 revenue is 4217 units."}])
    supervisor = cassettes("sup-oc-browser", [{"content": PASS}])
    row = attempt(load_task(package), executor, store, gateway, claw="openclaw", supervisor_model=supervisor,
                  network_policy="none")  # the page is served inside the container: no outside needed
    assert (row.status, row.passed) == (Status.PASS, True), row.error_message

    transcript = Path(row.artifacts_dir) / "cycles" / "0" / "transcript"
    events = [json.loads(line) for line in next(transcript.rglob("events.jsonl")).read_text().splitlines()]
    results = [e["data"] for e in events if e["type"] == "tool.result" and e["source"] == "runtime"]
    assert [(r["name"], r["success"]) for r in results] == [("browser", True), ("browser", True)]
    opened, read = (r["result"]["details"] for r in results)
    assert opened["wsUrl"].startswith("ws://127.0.0.1:9222/") and opened["browserTab"]["profile"] == "desktop"
    assert read["url"] == URL and "Q3 revenue: 4217 units" in json.dumps(results[1]["result"]["content"])
    desktop = json.loads((Path(row.artifacts_dir) / "artifacts" / "desktop.json").read_text())
    assert desktop["cdp_url"] == "http://127.0.0.1:9222"  # the Chromium the headed run started
