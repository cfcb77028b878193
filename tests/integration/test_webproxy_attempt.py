"""The web proxy inside a real closed-loop attempt (scripted models): record, then replay after
the site changed, with hits and misses in the row, the archive in the task hash, and a
rule-listed POST refused with its payload in the attempt's artifacts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawmark.catalog.package import load_task
from clawmark.webproxy import WebProxyConfig
from tests.support.closed_loop_fixtures import (  # noqa: F401
    attempt, cassettes, cycle_json, gateway, store, tool_outputs)
from tests.support.taskenv_fixtures import make_package
from tests.support.webproxy_fixtures import live_site, mitmdump  # noqa: F401 - fixtures

pytestmark = pytest.mark.docker
FAIL = json.dumps({"verdict": "fail", "attempt_state": "terminal_failure", "recoverable": False, "score": 0.0,
                   "confidence": "high", "rationale": "scripted", "missing_artifacts": [], "guidance_tags": []})
RULES = "block:\n  - id: checkout\n    methods: [POST]\n    url: '/api/checkout\\b'\n"


def test_an_attempt_records_then_replays_its_web_and_cannot_buy(live_site, mitmdump, store, gateway, cassettes, tmp_path):  # noqa: F811
    task = load_task(make_package(tmp_path, "web_attempt", files={"web_rules.yaml": RULES}))
    command = (f"curl -s {live_site.url('index.html')}; "
               f"curl -s -o /dev/null -w 'checkout %{{http_code}}' -d 'card=4111&item=book' {live_site.url('api/checkout')}")
    executor = cassettes("cl-web", [{"content": "Reading the shop.", "tool_calls": [
        {"name": "bash", "arguments": {"command": command}}]}, {"content": "Done."}])
    saw_it = FAIL.replace('"scripted"', '"saw the blocked checkout"')
    supervisor = cassettes("sup-web", [{"match": "- POST " + live_site.url("api/checkout") + " (rule checkout): card=4111&item=book",
                                        "content": saw_it}, {"content": FAIL}])
    web = {"archive_root": tmp_path / "archives", "confdir": tmp_path / "ca", "mitmdump": mitmdump}

    recorded = attempt(task, executor, store, gateway, supervisor_model=supervisor, network_policy="none",
                       web=WebProxyConfig(mode="record", **web))
    assert tool_outputs(recorded, 0)[0].strip().split("\n")[1:] == ["<h1>price: 10 EUR (version 1)</h1>", "checkout 403"]
    assert (recorded.web_hits, recorded.web_misses) == (0, 0)
    blocked = json.loads((Path(recorded.artifacts_dir) / "artifacts" / "web" / "blocked" / "0001.json").read_text())
    assert (blocked["rule"], blocked["body"]) == ("checkout", "card=4111&item=book")
    assert cycle_json(recorded, 0, "decision.json")["decision"]["rationale"] == "saw the blocked checkout"  # in its evidence

    live_site.write("index.html", "<h1>price: 99 EUR (version 2)</h1>\n")
    replayed = attempt(task, executor, store, gateway, supervisor_model=supervisor, network_policy="none",
                       web=WebProxyConfig(mode="replay", **web))
    assert tool_outputs(replayed, 0)[0] == tool_outputs(recorded, 0)[0]  # the same world, and still no purchase
    assert (replayed.web_hits, replayed.web_misses) == (1, 0)
    assert replayed.task_hash != recorded.task_hash == task.content_hash()
    assert replayed.identity_key() != recorded.identity_key()
    assert "POST" not in live_site.request_log()
