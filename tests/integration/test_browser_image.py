"""A web task without a desktop gets a browser the way upstream's skills reach theirs: an
upstream-layout task that needs the web runs in the `browser` image (headless Chromium, no X
server), with `agent-browser` on PATH. The probe executor opens the page the task's own service
serves, fills and clicks by snapshot refs, and saves a screenshot as a deliverable."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml
from PIL import Image

from clawmark.catalog import load_task
from clawmark.results import Status
from clawmark.taskenv.headed import BROWSER_RECIPE, task_recipe
from tests.support.closed_loop_fixtures import attempt, cassettes, cycle_file, decision, gateway, store  # noqa: F401
from tests.support.taskenv_fixtures import EVAL_RULE

pytestmark = pytest.mark.docker
TASK_ID, CATEGORY = "task_102_98_newsletter_form", "102_exploration"
FORM = """<html><head><title>Sign-up</title></head><body><h1>Newsletter</h1>
<input id="email" placeholder="Email"><button id="go">Subscribe</button><p id="out"></p>
<script>document.getElementById('go').addEventListener('click', () => {
  document.getElementById('out').innerText = 'Subscribed ' + document.getElementById('email').value; });</script>
</body></html>
"""
PROBE = """set -e
agent-browser open http://127.0.0.1:8099/form.html
agent-browser snapshot
agent-browser fill @e2 ada@example.org
agent-browser click @e3
agent-browser get text '#out' > /tmp_workspace/results/confirmation.txt
agent-browser screenshot /tmp_workspace/results/page.png
pgrep -f -- '--headless' >/dev/null && echo headless; pgrep -x Xvfb || echo no-display"""


def web_task(root: Path):
    package = root / "injection" / CATEGORY / TASK_ID
    (package / "services" / "site").mkdir(parents=True)
    (package / "services" / "site" / "form.html").write_text(FORM)
    (package / "references").mkdir()
    (package / "references" / "eval_rule.md").write_text(EVAL_RULE.format(task_id=TASK_ID, secret_line="subscribed"))
    spec = {"task_id": TASK_ID, "category": CATEGORY, "references": ["references/eval_rule.md"],
            "task": "Subscribe ada@example.org to the newsletter in the browser at http://127.0.0.1:8099/form.html "
                    "and save a screenshot to /tmp_workspace/results/page.png.",
            "services": [{"name": "site", "start": "python3 -m http.server 8099 --bind 127.0.0.1"}]}
    (root / "tasks" / CATEGORY).mkdir(parents=True)
    (root / "tasks" / CATEGORY / f"{TASK_ID}.yaml").write_text(yaml.safe_dump(spec))
    return load_task(root / "tasks" / CATEGORY / f"{TASK_ID}.yaml")


def test_a_web_task_gets_a_headless_browser_without_the_desktop(tmp_path, store, gateway, cassettes):  # noqa: F811
    task = web_task(tmp_path)
    assert task_recipe(task) == BROWSER_RECIPE
    executor = cassettes("exec-browser", [{"tool_calls": [{"name": "bash", "arguments": {"command": PROBE}}]},
                                          {"content": "Subscribed and saved the screenshot."}])
    supervisor = cassettes("sup-browser", [{"content": decision("pass", "complete_and_passed", 1.0)}])
    row = attempt(task, executor, store, gateway, supervisor_model=supervisor)
    assert (row.status, row.runtime_profile) == (Status.PASS, "root-least"), row.error_message
    output = json.loads(cycle_file(row, 0, "transcript/reference-messages.json").read_text())
    shown = [m["content"] for m in output if m["role"] == "tool"][0]
    assert "- button \"Subscribe\" [ref=@e3]" in shown and shown.rstrip().endswith("headless\nno-display")
    assert cycle_file(row, 0, "results/confirmation.txt").read_text().strip() == "Subscribed ada@example.org"
    shot = Image.open(io.BytesIO(cycle_file(row, 0, "results/page.png").read_bytes()))
    assert shot.format == "PNG" and shot.size[0] == 1440  # the 1440x900 window, less its top bar
