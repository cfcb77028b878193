"""HTTPS through the web proxy: its CA is trusted by every client of a headed task container
(curl via the system bundle, Python requests, Node, Chromium via its NSS db), and replay
serves the recorded HTTPS page to Chromium after the site stopped."""

from __future__ import annotations

import pytest

from clawmark.catalog.package import load_task
from clawmark.taskenv import TaskEnvConfig
from clawmark.webproxy import WebProxyConfig, web_task_env
from tests.support.desktop_fixtures import desktop_image  # noqa: F401 - fixture
from tests.support.taskenv_fixtures import make_package
from tests.support.webproxy_fixtures import live_site, mitmdump, self_signed  # noqa: F401 - fixtures

pytestmark = pytest.mark.docker

# Node's fetch ignores proxy variables: tunnel by hand, then TLS with Node's own trust
# (its bundled roots + NODE_EXTRA_CA_CERTS), as any Node client behind a proxy does.
NODE_GET = """
const http = require("http"), tls = require("tls");
const proxy = new URL(process.env.HTTPS_PROXY), url = new URL(process.argv[1]);
http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: `${url.hostname}:${url.port}` })
  .on("connect", (res, socket) => {
    const s = tls.connect({ socket, servername: url.hostname }, () => {
      s.write(`GET ${url.pathname} HTTP/1.1\\r\\nHost: ${url.host}\\r\\nConnection: close\\r\\n\\r\\n`); });
    let body = ""; s.on("data", (d) => (body += d)); s.on("end", () => console.log(body.split("\\r\\n\\r\\n")[1].trim()));
    s.on("error", (e) => { console.log("tls error: " + e.code); process.exit(1); });
  }).end();
"""
CDP = "/var/tmp/cdp.mjs"
V1 = "<h1>price: 10 EUR (version 1)</h1>"
V1_TEXT = "price: 10 EUR (version 1)"  # what Chromium shows of it


def _clients(url: str) -> list[str]:
    return [f"curl -s {url}",
            f"python3 -c \"import requests, sys; print(requests.get(sys.argv[1]).text.strip())\" {url}",
            f"node -e '{NODE_GET}' {url}",
            f"clawmark-desktop-start --browser >/dev/null && node {CDP} open {url} >/dev/null && node {CDP} text"]


def _attempt(task, image, tmp_path, web, name, commands):
    from tests.support.desktop_fixtures import BASE_SKILLS

    config = TaskEnvConfig(image=image, network_policy="none", labels={"clawmark.test": "webproxy"})
    with web_task_env(task, config, tmp_path / name / "logs", web, tmp_path / name / "web") as (_, sandbox, proxy):
        sandbox.write_file(CDP, (BASE_SKILLS / "browser-control/scripts/cdp.mjs").read_bytes(), mode=0o755)
        outputs = [sandbox.exec(cmd, timeout_s=180) for cmd in commands]
        return [(o.stdout.strip() or o.stderr.strip()[-300:]) for o in outputs], proxy.stats()


def test_https_is_recorded_for_every_client_and_replayed_to_chromium(desktop_image, live_site, mitmdump, tmp_path):
    cert, key = self_signed(live_site.ip)
    (tmp_path / "site-ca.pem").write_bytes(cert)
    base = live_site.serve_https(cert, key)
    task = load_task(make_package(tmp_path, "web_https", headed=True))
    web = {"archive_root": tmp_path / "archives", "confdir": tmp_path / "ca", "mitmdump": mitmdump,
           "upstream_ca": tmp_path / "site-ca.pem"}
    page = f"{base}/index.html"

    recorded, stats = _attempt(task, desktop_image, tmp_path, WebProxyConfig(mode="record", **web), "rec", _clients(page))
    assert recorded == [V1] * 3 + [V1_TEXT]  # each client trusted the proxy's CA
    assert stats.recorded >= 1 and stats.misses == 0

    live_site.stop()
    replayed, stats = _attempt(task, desktop_image, tmp_path, WebProxyConfig(mode="replay", **web), "rep",
                               [_clients(page)[3], f"curl -s -o /dev/null -w '%{{http_code}}' {base}/other.html"])
    assert replayed == [V1_TEXT, "502"]
    assert stats.hits >= 1 and f"GET {base}/other.html" in stats.miss_urls


def test_services_and_the_executor_trust_the_proxys_ca_from_the_start(live_site, mitmdump, tmp_path):
    """The CA goes in before anything of the task runs: a oneshot service fetches an HTTPS page
    through the proxy (curl, system bundle) and a background one with Python's requests; the
    executor then reads what they saw and fetches it itself."""
    from clawmark.runtime.images import ensure_image
    from clawmark.taskenv.config import WORKSTATION_RECIPE

    cert, key = self_signed(live_site.ip)
    (tmp_path / "site-ca.pem").write_bytes(cert)
    page = f"{live_site.serve_https(cert, key)}/index.html"
    results = "/tmp_workspace/results"
    services = [
        {"name": "fetch-curl", "path": "fetch", "oneshot": True,
         "start": f"curl -sS {page} > {results}/curl.txt 2>&1 || echo exit $? >> {results}/curl.txt"},
        {"name": "fetch-python", "path": "fetch", "oneshot": True,
         "start": f"python3 -c \"import requests; print(requests.get('{page}').text.strip())\" > {results}/py.txt 2>&1; true"},
    ]
    task = load_task(make_package(tmp_path, "web_ca_first", services=services, files={"services/fetch/README": "x\n"}))
    web = WebProxyConfig(mode="record", archive_root=tmp_path / "archives", confdir=tmp_path / "ca",
                         mitmdump=mitmdump, upstream_ca=tmp_path / "site-ca.pem")
    config = TaskEnvConfig(image=ensure_image(WORKSTATION_RECIPE), network_policy="none",
                           labels={"clawmark.test": "webproxy"})
    with web_task_env(task, config, tmp_path / "logs", web, tmp_path / "web") as (_, sandbox, proxy):
        saw = [sandbox.exec(f"cat {results}/{name}", timeout_s=30).stdout.strip() for name in ("curl.txt", "py.txt")]
        executor = sandbox.exec(f"curl -sS {page}", timeout_s=60).stdout.strip()
    assert saw == [V1, V1]  # both services fetched HTTPS through the proxy, trusting its CA
    assert executor == V1
    assert proxy.stats().recorded >= 1
