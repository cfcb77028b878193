"""Replay answers each request with what was recorded for THAT request: through the real web
proxy, from a real task container, two POSTs to one URL with different bodies, one page under
two cookies or two Accept-Language values, and a page fetched twice that changed in between,
each get their own recorded answer (in recorded order) after the site has changed; a request
that differs from every recording only in its body or cookies is a miss naming what differed."""

from __future__ import annotations

import time

import pytest

from clawmark.catalog.package import load_task
from clawmark.webproxy import archive_digest
from tests.support.taskenv_fixtures import make_package
from tests.support.taskenv_fixtures import workstation  # noqa: F401 - fixture
from tests.integration.test_webproxy_replay import _attempt, _web
from tests.support.webproxy_fixtures import live_site, mitmdump  # noqa: F401 - fixtures

pytestmark = pytest.mark.docker

ECHO_PORT = 8001
# A site whose answers depend on the request: the POST body, the Cookie and Accept-Language
# headers, how often /visits was asked, and /site/version (which the test changes).
ECHO_SERVER = """import http.server, pathlib
class Echo(http.server.BaseHTTPRequestHandler):
    visits = 0
    def answer(self, text):
        body = f"{text} ({pathlib.Path('/site/version').read_text().strip()})".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        if self.path == "/visits":
            Echo.visits += 1
            return self.answer(f"visit {Echo.visits}")
        self.answer(f"page for {self.headers.get('Cookie', 'no cookie')}, {self.headers.get('Accept-Language', 'any')}")
    def do_POST(self):
        self.answer("quote for " + self.rfile.read(int(self.headers["Content-Length"])).decode())
    def log_message(self, *args):
        with open("/site/requests.log", "a") as log:
            log.write(self.requestline + "\\n")
http.server.ThreadingHTTPServer(("0.0.0.0", 8001), Echo).serve_forever()
"""
CURL = "curl -s -w ' [%{http_code}]' "


def _serve_echo(site) -> str:
    site.write("version", "v1\n")
    site.write("echo.py", ECHO_SERVER)
    site.container.exec_run(["python3", "-u", "/site/echo.py"], detach=True, user="0")
    for _ in range(100):
        if site.container.exec_run(["sh", "-c", f"grep -qi ':{ECHO_PORT:04X} ' /proc/net/tcp"]).exit_code == 0:
            return f"http://{site.ip}:{ECHO_PORT}"
        time.sleep(0.2)
    raise AssertionError("the test site's echo server never listened")


def _echo_requests(site) -> int:
    """Requests the echo server answered (it logs one line each to /site/requests.log)."""
    result = site.container.exec_run(["sh", "-c", "cat /site/requests.log 2>/dev/null"], user="0")
    return len(result.output.decode().splitlines())


def test_replay_tells_requests_apart_by_body_cookies_and_accept_language_in_recorded_order(
        workstation, live_site, mitmdump, tmp_path):
    base = _serve_echo(live_site)
    task = load_task(make_package(tmp_path, "web_match"))
    reads = [f"{CURL} -d 'item=a' {base}/quote", f"{CURL} -d 'item=b' {base}/quote",
             f"{CURL} -b 'theme=dark' {base}/page", f"{CURL} -b 'theme=light' {base}/page",
             f"{CURL} -H 'Accept-Language: de' {base}/page", f"{CURL} -H 'Accept-Language: fr' {base}/page",
             f"{CURL} {base}/visits", f"{CURL} {base}/visits"]

    recorded, record_stats, _ = _attempt(task, workstation, tmp_path, _web(tmp_path, "record", mitmdump), "rec", reads)
    assert recorded == ["quote for item=a (v1) [200]", "quote for item=b (v1) [200]",
                        "page for theme=dark, any (v1) [200]", "page for theme=light, any (v1) [200]",
                        "page for no cookie, de (v1) [200]", "page for no cookie, fr (v1) [200]",
                        "visit 1 (v1) [200]", "visit 2 (v1) [200]"]

    live_site.write("version", "v2\n")
    archive_dir = _web(tmp_path, "record", mitmdump).archive_dir(task.task_id)
    digest = archive_digest(archive_dir)
    again, again_stats, _ = _attempt(task, workstation, tmp_path, _web(tmp_path, "record", mitmdump), "rec2",
                                     [reads[0], reads[2]])
    assert again == ["quote for item=a (v2) [200]", "page for theme=dark, any (v2) [200]"]
    assert (again_stats.recorded, again_stats.already_recorded) == (0, 2)  # the first run's answers win
    assert archive_digest(archive_dir) == digest  # so replay cells keep their keys

    answered = _echo_requests(live_site)
    misses = [f"{CURL} -d 'item=c' {base}/quote", f"{CURL} -b 'theme=blue' {base}/page"]
    replayed, stats, _ = _attempt(task, workstation, tmp_path, _web(tmp_path, "replay", mitmdump), "rep",
                                  [*reads, f"{CURL} {base}/visits", *misses])
    assert replayed[:len(reads)] == recorded  # each request its own answer, repeats in recorded order
    assert record_stats.recorded == len(reads)
    assert replayed[len(reads)] == "visit 2 (v1) [200]"  # past the recordings the last answer repeats
    body_miss, cookie_miss = replayed[len(reads) + 1:]
    assert body_miss.endswith("[502]") and "no recording of it has this request's body;" in body_miss
    assert cookie_miss.endswith("[502]") and "no recording of it has this request's cookies (theme);" in cookie_miss
    assert (stats.hits, stats.misses, stats.live) == (len(reads) + 1, 2, 0)
    assert stats.miss_reasons == [
        f"POST {base}/quote: is in this task's web archive, but no recording of it has this request's body",
        f"GET {base}/page: is in this task's web archive, but no recording of it has this request's cookies (theme)"]
    assert _echo_requests(live_site) == answered  # nothing of the replay reached the site


def test_an_archive_recorded_before_cookies_and_headers_were_kept_still_replays(mitmdump, tmp_path):
    """An entry as the proxy wrote them before (file named by method + URL + body, no `match`):
    served for any cookies and headers; another body is a plain miss, never fetched (the host
    `old.test` does not even resolve)."""
    import hashlib
    import json

    import httpx

    from clawmark.webproxy import WebProxy

    web = _web(tmp_path, "replay", mitmdump)
    old = {"method": "POST", "url": "http://old.test/quote", "status": 200, "headers": [["Content-Type", "text/plain"]],
           "content_b64": "b2xkIHF1b3Rl"}  # "old quote"
    name = hashlib.sha256(b"POST http://old.test/quote " + hashlib.sha256(b"item=a").digest()).hexdigest()
    web.archive_dir("web_old").mkdir(parents=True)
    (web.archive_dir("web_old") / f"{name}.json").write_text(json.dumps(old))
    with WebProxy(web, "web_old", tmp_path / "web", host="127.0.0.1") as proxy:
        with httpx.Client(proxy=f"http://127.0.0.1:{proxy.port}", timeout=30) as client:
            hit = client.post("http://old.test/quote", content=b"item=a", headers={"Cookie": "id=7", "Accept-Language": "de"})
            miss = client.post("http://old.test/quote", content=b"item=b")
        stats = proxy.stats()
    assert (hit.status_code, hit.text) == (200, "old quote")
    assert miss.status_code == 502 and miss.headers["X-Clawmark-Replay"] == "miss"
    assert "is not in this task's web archive" in miss.text
    assert (stats.hits, stats.misses) == (1, 1)
