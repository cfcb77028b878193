"""Record/replay and blocking through the real web proxy (mitmdump + our addon), from a real
task container to a "live" site the test runs as its own container and then changes or stops."""

from __future__ import annotations

import json

import pytest

from clawmark.catalog.package import load_task
from clawmark.taskenv import TaskEnvConfig
from clawmark.webproxy import BlockRule, WebProxyConfig, web_task_env, web_task_hash
from tests.support.taskenv_fixtures import make_package
from tests.support.taskenv_fixtures import workstation  # noqa: F401 - fixture
from tests.support.webproxy_fixtures import live_site, mitmdump  # noqa: F401 - fixtures

pytestmark = pytest.mark.docker

CURL = "curl -s -w ' [%{http_code}]' "
V1 = "<h1>price: 10 EUR (version 1)</h1>"
PY_GET = "python3 -c \"import requests, sys; r = requests.get(sys.argv[1]); print(r.status_code, r.text.strip())\" "


def _web(tmp_path, mode: str, mitmdump: str, **extra) -> WebProxyConfig:
    return WebProxyConfig(mode=mode, archive_root=tmp_path / "archives", confdir=tmp_path / "ca",
                          mitmdump=mitmdump, **extra)


def _attempt(task, image, tmp_path, web: WebProxyConfig, name: str, commands: list[str]):
    """Run `commands` as the executor in a task container behind the proxy; outputs and stats."""
    config = TaskEnvConfig(image=image, network_policy="none", labels={"clawmark.test": "webproxy"})
    with web_task_env(task, config, tmp_path / name / "logs", web, tmp_path / name / "web") as (_, sandbox, proxy):
        outputs = [sandbox.exec(cmd, timeout_s=120).stdout.strip() for cmd in commands]
        trust = sandbox.exec("grep -c 'BEGIN CERT' $SSL_CERT_FILE; python3 -c \"import ssl, os; "
                             "print(any('mitmproxy' in str(c) for c in ssl.create_default_context("
                             "cafile=os.environ['REQUESTS_CA_BUNDLE']).get_ca_certs()))\"", timeout_s=60).stdout
        return outputs, proxy.stats(), trust


def test_replay_serves_the_recorded_web_after_the_site_changed_and_stopped(
        workstation, live_site, mitmdump, tmp_path):
    task = load_task(make_package(tmp_path, "web_replay"))
    page = live_site.url("index.html")
    reads = [CURL + page, PY_GET + page]

    recorded, record_stats, trust = _attempt(task, workstation, tmp_path, _web(tmp_path, "record", mitmdump), "rec", reads)
    assert recorded[0] == f"{V1}\n [200]"
    assert recorded[1] == f"200 {V1}"
    assert (record_stats.recorded, record_stats.live) == (2, 2)  # each exchange, replayed in order
    assert trust.strip().endswith("True")  # the proxy's CA is in the bundle Python and Node read

    live_site.write("index.html", "<h1>price: 99 EUR (version 2)</h1>\n")
    assert "version 2" in live_site.fetch_direct("index.html")
    replay = _web(tmp_path, "replay", mitmdump)
    replayed, stats, _ = _attempt(task, workstation, tmp_path, replay, "rep1", [*reads, CURL + live_site.url("not-recorded.html")])
    assert replayed[:2] == recorded
    assert replayed[2].endswith("[502]") and "not-recorded.html is not in this task's web archive" in replayed[2]
    assert (stats.hits, stats.misses, stats.live) == (2, 1, 0)
    assert stats.miss_urls == [f"GET {live_site.url('not-recorded.html')}"]
    assert "not-recorded.html" not in live_site.request_log()  # reported as a miss, never fetched

    live_site.stop()
    again, stats, _ = _attempt(task, workstation, tmp_path, replay, "rep2", reads)
    assert again == recorded and stats.hits == 2
    assert json.loads((tmp_path / "rep2" / "web" / "webproxy.json").read_text())["hits"] == 2

    assert web_task_hash(task, replay) != task.content_hash()  # the archive is part of the task
    assert web_task_hash(task, replay) == web_task_hash(task, replay)
    assert web_task_hash(task, _web(tmp_path, "record", mitmdump)) == task.content_hash()


def test_a_rule_listed_post_never_reaches_the_site_and_its_payload_is_kept(
        workstation, live_site, mitmdump, tmp_path):
    task = load_task(make_package(tmp_path, "web_block", files={
        "web_rules.yaml": "block:\n  - id: checkout\n    methods: [POST]\n    url: '/api/checkout\\b'\n"}))
    form = live_site.url("form.html")
    submit = f"{CURL} -X POST -d 'item=book&card=4111' {live_site.url('api/checkout')}"
    for mode in ("live", "record"):
        out, stats, _ = _attempt(task, workstation, tmp_path, _web(tmp_path, mode, mitmdump), mode, [CURL + form, submit])
        assert 'action="/api/checkout"' in out[0]
        assert out[1].endswith("[403]") and "blocked and NOT sent" in out[1] and "Treat the action as not performed" in out[1]
        assert stats.blocked == 1 and stats.blocked_urls == [f"POST {live_site.url('api/checkout')}"]
        evidence = json.loads((tmp_path / mode / "web" / "blocked" / "0001.json").read_text())
        assert (evidence["rule"], evidence["method"], evidence["body"]) == ("checkout", "POST", "item=book&card=4111")
    assert "POST" not in live_site.request_log() and "/api/checkout" not in live_site.request_log()


def test_sweep_rules_block_in_replay_too(workstation, live_site, mitmdump, tmp_path):
    task = load_task(make_package(tmp_path, "web_sweep_rule"))
    sweep_rule = BlockRule(id="send", methods=["POST", "PUT"], url=r"/send\b")
    web = _web(tmp_path, "replay-or-live", mitmdump, block=[sweep_rule])
    out, stats, _ = _attempt(task, workstation, tmp_path, web, "rol",
                             [f"{CURL} -X PUT -d 'to=boss' {live_site.url('mail/send')}", CURL + live_site.url("index.html")])
    assert out[0].endswith("[403]") and out[1] == f"{V1}\n [200]"
    assert (stats.blocked, stats.misses, stats.live) == (1, 1, 1)  # the miss went live, as the mode asks
    assert "PUT" not in live_site.request_log()
