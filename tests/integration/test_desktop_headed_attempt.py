"""A headed task runs end to end on scripted models: the attempt starts the desktop (and only
for a headed task), saves a screenshot per turn end, records the screen, and the supervisor is
shown the screenshot (its cassette passes only when the screenshot is in its request)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from clawmark.catalog.package import load_task
from clawmark.results import Status
from tests.support.closed_loop_fixtures import (  # noqa: F401
    attempt, cassettes, cycle_file, gateway, store, tool_outputs)
from tests.support.desktop_fixtures import desktop_image  # noqa: F401 - fixture
from tests.support.taskenv_fixtures import make_package

pytestmark = pytest.mark.docker
PASS = {"verdict": "pass", "attempt_state": "complete_and_passed", "recoverable": False, "score": 1.0,
        "confidence": "high", "rationale": "The desktop shows the chart.", "missing_artifacts": [], "guidance_tags": []}
FAIL = {**PASS, "verdict": "fail", "attempt_state": "terminal_failure", "score": 0.0, "rationale": "No screenshot."}
DRAW = "DISPLAY=:99 setsid xterm -geometry 80x20+100+100 -e 'echo chart ready; sleep 300' >/dev/null 2>&1 & sleep 2; echo drawn"
PAGE = "<html><head><title>Q3 chart</title></head><body>revenue 42</body></html>"
SERVE = (f"mkdir -p /tmp/site && echo '{PAGE}' > /tmp/site/index.html && "
         "(setsid python3 -m http.server 8099 --bind 127.0.0.1 --directory /tmp/site >/dev/null 2>&1 &) && sleep 1")


def test_a_headed_task_runs_with_screenshots_a_video_and_the_supervisor_sees_them(
        desktop_image, docker_client, store, gateway, cassettes, tmp_path):  # noqa: F811
    task = load_task(make_package(tmp_path, "headed_chart", headed=True, recording="low"))
    executor = cassettes("cl-headed", [
        {"content": "Drawing on the desktop.", "tool_calls": [{"name": "bash", "arguments": {"command": f"{SERVE}; {DRAW}"}}]},
        {"content": "Reading the page.", "tool_calls": [
            {"name": "browser", "arguments": {"action": "open", "target": "http://127.0.0.1:8099/index.html"}}]},
        {"content": "The chart is on screen."}])
    supervisor = cassettes("sup-headed", [
        {"match": "Screenshot of the executor's desktop (screen.png)", "content": json.dumps(PASS)},
        {"content": json.dumps(FAIL)}])
    row = attempt(task, executor, store, gateway, supervisor_model=supervisor)
    assert (row.status, row.passed, row.turns) == (Status.PASS, True, 1), row.error_message
    assert tool_outputs(row, 0)[1] == "Q3 chart"  # the reference claw's browser tool, on the desktop's Chromium

    shot = Image.open(io.BytesIO(cycle_file(row, 0, "screen.png").read_bytes()))
    assert shot.size == (1440, 900) and len(shot.convert("RGB").getcolors(1 << 20) or []) > 10
    artifacts = Path(row.artifacts_dir) / "artifacts"
    desktop = json.loads((artifacts / "desktop.json").read_text())
    assert desktop["cdp_url"] == "http://127.0.0.1:9222" and desktop["recording"] == "low"
    assert (artifacts / "recording.mp4").read_bytes()[4:8] == b"ftyp"
    assert row.image_id == docker_client.images.get(desktop_image).id  # the task ran in the desktop image


def test_a_task_that_is_not_headed_never_starts_the_desktop(store, gateway, cassettes, tmp_path):  # noqa: F811
    task = load_task(make_package(tmp_path, "plain_task"))
    executor = cassettes("cl-plain", [
        {"content": "Looking.", "tool_calls": [{"name": "bash", "arguments": {"command": "pgrep -c Xvfb; command -v Xvfb; echo done"}}]},
        {"content": "Done."}])
    supervisor = cassettes("sup-plain", [{"content": json.dumps(FAIL)}])
    row = attempt(task, executor, store, gateway, supervisor_model=supervisor)
    assert row.status == Status.FAIL, row.error_message
    assert not cycle_file(row, 0, "screen.png").exists()
    assert not (Path(row.artifacts_dir) / "artifacts" / "desktop.json").exists()
    messages = json.loads(cycle_file(row, 0, "transcript/reference-messages.json").read_text())
    assert [m["content"] for m in messages if m["role"] == "tool"][0].strip().split("\n")[1:] == ["0", "done"]


def test_an_auto_task_with_a_declared_gui_need_gets_the_desktop(
        desktop_image, docker_client, store, gateway, cassettes, tmp_path):  # noqa: F811
    """`headed: auto` (upstream's default) plus a GUI-setup service, the way upstream's GUI tasks
    declare theirs: the attempt runs in the desktop image with the desktop up before the first turn."""
    service = {"name": "calc-gui-setup", "path": "setup", "start": "echo ready", "oneshot": True}
    task = load_task(make_package(tmp_path, "auto_gui", services=[service], files={"services/setup/README": "x\n"}))
    assert task.spec.headed == "auto"
    executor = cassettes("cl-auto-gui", [
        {"content": "Looking.", "tool_calls": [{"name": "bash", "arguments": {"command": "DISPLAY=:99 xdpyinfo | grep -c 'dimensions: *1440x900 pixels'"}}]},
        {"content": "Done."}])
    row = attempt(task, executor, store, gateway, supervisor_model=cassettes("sup-auto-gui", [{"content": json.dumps(FAIL)}]),
                  network_policy="none")
    assert row.status == Status.FAIL, row.error_message
    assert tool_outputs(row, 0)[0].strip().split("\n")[-1] == "1"  # the display answered the executor
    assert cycle_file(row, 0, "screen.png").read_bytes()[:4] == b"\x89PNG"
    assert row.image_id == docker_client.images.get(desktop_image).id
