"""The mitmdump addon: runs INSIDE mitmdump's own interpreter (a separate venv), so it imports
only the standard library, mitmproxy and its sibling `archive.py` (loaded by path).

`mitmdump -s addon.py --set clawmark_config=CONFIG.json`. The config (written by
`clawmark.webproxy.proxy.WebProxy`) names the mode, the archive folder, the output folder and
the block rules. Order per request: a block rule wins in every mode (refusal + evidence);
then replay looks the request up in the archive (`archive.find`: method, URL and what was
recorded of body, cookies and content-selecting headers; hit: the next matching answer in
recorded order; miss: a 502 naming the miss and what did not match, or live in
replay-or-live); record saves each live exchange with what it will be matched on, unless an
earlier record run already holds a recording that matches it.
Counters are rewritten to `<out>/webproxy.json` after every event, so a killed proxy still
leaves them.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import re
import sys
import threading
import time
from pathlib import Path

from mitmproxy import ctx, http

_spec = importlib.util.spec_from_file_location("clawmark_web_archive", Path(__file__).with_name("archive.py"))
archive = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = archive
_spec.loader.exec_module(archive)

MISS_STATUS = 502
BLOCK_STATUS = 403
MAX_LISTED = 50
MAX_EVIDENCE_BODY = 256 * 1024


class ClawmarkWeb:
    def __init__(self) -> None:
        self.config: dict = {}
        self.rules: list[tuple[set[str], re.Pattern, str]] = []
        self.stats = {"mode": None, "hits": 0, "misses": 0, "recorded": 0, "already_recorded": 0, "blocked": 0,
                      "live": 0, "miss_urls": [], "miss_reasons": [], "blocked_urls": []}
        self.served: dict[tuple[str, ...], int] = {}  # answers served per set of matching recordings
        self.lock = threading.Lock()

    def load(self, loader) -> None:
        loader.add_option("clawmark_config", str, "", "clawmark web proxy config (JSON file)")

    def configure(self, updated) -> None:
        if "clawmark_config" not in updated or not ctx.options.clawmark_config:
            return
        self.config = json.loads(Path(ctx.options.clawmark_config).read_text())
        self.rules = [({m.upper() for m in r["methods"]}, re.compile(r["url"]), r["id"])
                      for r in self.config.get("block", [])]
        self.stats["mode"] = self.config["mode"]
        self.out = Path(self.config["out_dir"])
        self.archive_dir = Path(self.config["archive_dir"])
        self.passthrough = {h.lower() for h in self.config.get("passthrough_hosts", [])}
        self.earlier = {p.name for p in self.archive_dir.glob("*.json")}  # recorded by earlier runs
        (self.out / "blocked").mkdir(parents=True, exist_ok=True)
        self._save_stats()

    def request(self, flow: http.HTTPFlow) -> None:
        req = flow.request
        rule = self._blocking_rule(req.method, req.pretty_url)
        if rule is not None:
            self._block(flow, rule)
            return
        mode = self.config.get("mode")
        if req.pretty_host.lower() in self.passthrough:
            flow.metadata["clawmark"] = "passthrough"
            return
        if mode not in ("replay", "replay-or-live"):
            return
        request = archive.describe(req.raw_content or b"", list(req.headers.items(multi=True)))
        matches, differ = archive.find(self.archive_dir, req.method, req.pretty_url, request)
        if matches:
            entry = self._next_answer(matches)
            flow.response = http.Response.make(entry["status"], base64.b64decode(entry["content_b64"]),
                                               [(k.encode(), v.encode()) for k, v in entry["headers"]])
            flow.metadata["clawmark"] = "hit"
            self._count("hits")
            return
        reason = _miss_reason(differ)
        self._count("misses", "miss_urls", f"{req.method} {req.pretty_url}")
        self._count(None, "miss_reasons", f"{req.method} {req.pretty_url}: {reason}")
        if mode == "replay":
            flow.metadata["clawmark"] = "miss"
            flow.response = http.Response.make(
                MISS_STATUS, (f"clawmark web replay: {req.method} {req.pretty_url} {reason}; nothing was fetched "
                              "(replay mode serves only recorded exchanges).\n").encode(),
                {"Content-Type": "text/plain; charset=utf-8", "X-Clawmark-Replay": "miss",
                 "X-Clawmark-Replay-Differs": ", ".join(differ) or "-"})

    def _next_answer(self, matches: list[tuple[str, dict]]) -> dict:
        """Answers that share a key are served in recorded order; the last one repeats after."""
        names = tuple(name for name, _ in matches)
        with self.lock:
            served = self.served.get(names, 0)
            self.served[names] = served + 1
        return matches[min(served, len(matches) - 1)][1]

    def response(self, flow: http.HTTPFlow) -> None:
        if flow.metadata.get("clawmark") in ("hit", "miss", "blocked", "passthrough"):
            return
        self._count("live")
        if self.config.get("mode") != "record" or flow.response is None:
            return
        req, resp = flow.request, flow.response
        body, headers = req.raw_content or b"", list(req.headers.items(multi=True))
        matches, _ = archive.find(self.archive_dir, req.method, req.pretty_url, archive.describe(body, headers))
        if any(name in self.earlier for name, _ in matches):
            self._count("already_recorded")  # an earlier run's answer wins
            return
        archive.save(self.archive_dir, req.method, req.pretty_url, body, resp.status_code,
                     list(resp.headers.items(multi=True)), resp.content or b"", headers,
                     self.config.get("match_headers", archive.DEFAULT_MATCH_HEADERS),
                     self.config.get("match_cookies", True))
        self._count("recorded")

    def _blocking_rule(self, method: str, url: str) -> str | None:
        for methods, pattern, rule_id in self.rules:
            if ("*" in methods or method.upper() in methods) and pattern.search(url):
                return rule_id
        return None

    def _block(self, flow: http.HTTPFlow, rule_id: str) -> None:
        req = flow.request
        with self.lock:
            self.stats["blocked"] += 1
            number = self.stats["blocked"]
        body = req.raw_content or b""
        evidence = {"rule": rule_id, "method": req.method, "url": req.pretty_url, "time": time.time(),
                    "headers": [[k, v] for k, v in req.headers.items(multi=True)],
                    **_body_fields(body)}
        _write_json(self.out / "blocked" / f"{number:04d}.json", evidence)
        flow.metadata["clawmark"] = "blocked"
        flow.response = http.Response.make(
            BLOCK_STATUS, (f"clawmark: this request was blocked and NOT sent ({req.method} {req.pretty_url}, "
                           f"rule {rule_id!r}). Irreversible actions (purchases, bookings, payments, messages) "
                           "are not allowed in this benchmark; the request and its payload were saved as "
                           "evidence. Treat the action as not performed.\n").encode(),
            {"Content-Type": "text/plain; charset=utf-8", "X-Clawmark-Blocked": rule_id})
        self._count(None, "blocked_urls", f"{req.method} {req.pretty_url}")

    def _count(self, counter: str | None, listing: str | None = None, item: str | None = None) -> None:
        with self.lock:
            if counter:
                self.stats[counter] += 1
            if listing and len(self.stats[listing]) < MAX_LISTED:
                self.stats[listing].append(item)
            self._save_stats()

    def _save_stats(self) -> None:
        _write_json(self.out / "webproxy.json", self.stats)


def _miss_reason(differ: list[str]) -> str:
    if not differ:
        return "is not in this task's web archive"
    return f"is in this task's web archive, but no recording of it has this request's {', '.join(differ)}"


def _body_fields(body: bytes) -> dict:
    shown = body[:MAX_EVIDENCE_BODY]
    try:
        return {"body": shown.decode("utf-8"), "body_encoding": "utf-8", "body_bytes": len(body)}
    except UnicodeDecodeError:
        return {"body": base64.b64encode(shown).decode(), "body_encoding": "base64", "body_bytes": len(body)}


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


addons = [ClawmarkWeb()]
