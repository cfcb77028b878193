"""The web archive's keys and digest, and block-rule files: what replay and the task hash rely on."""

from __future__ import annotations

import base64
import hashlib
import json
import re

import pytest

from clawmark.catalog.errors import CatalogError
from clawmark.webproxy import IRREVERSIBLE_RULES, load_rules
from clawmark.webproxy import archive


def _find(folder, method, url, body=b"", headers=()):
    matches, differ = archive.find(folder, method, url, archive.describe(body, list(headers)))
    return [base64.b64decode(entry["content_b64"]) for _, entry in matches], differ


def test_every_recording_is_kept_in_order_and_the_fragment_is_not_part_of_the_key(tmp_path):
    first = archive.save(tmp_path, "GET", "http://shop.test/a#top", b"", 200, [("Content-Type", "text/html")], b"one")
    second = archive.save(tmp_path, "get", "http://shop.test/a", b"", 200, [], b"two")
    assert first.name < second.name and first.name.endswith("-000000.json")
    assert _find(tmp_path, "GET", "http://shop.test/a#other") == ([b"one", b"two"], [])
    assert _find(tmp_path, "POST", "http://shop.test/a") == ([], [])
    assert _find(tmp_path, "GET", "http://shop.test/a?x=1") == ([], [])


def test_bodies_cookies_and_the_declared_headers_select_the_answer(tmp_path):
    url = "http://api.test/q"
    archive.save(tmp_path, "POST", url, b'{"q": 1}', 200, [("Content-Encoding", "gzip"), ("X-A", "1")], b"r1",
                 [("Cookie", "b=2; a=1"), ("Accept-Language", "de"), ("User-Agent", "curl")])
    archive.save(tmp_path, "POST", url, b'{"q": 2}', 200, [], b"r2", [("Cookie", "a=1; b=2"), ("Accept-Language", "de")])
    same = [("cookie", "a=1"), ("cookie", "b=2"), ("accept-language", "de"), ("User-Agent", "other")]
    assert _find(tmp_path, "POST", url, b'{"q": 1}', same) == ([b"r1"], [])  # cookie order, split, case, UA: no
    assert _find(tmp_path, "POST", url, b'{"q": 2}', same) == ([b"r2"], [])
    assert _find(tmp_path, "POST", url, b'{"q": 3}', same) == ([], ["body"])
    assert _find(tmp_path, "POST", url, b'{"q": 1}', [("Cookie", "a=1; b=3"), ("Accept-Language", "de")]) == (
        [], ["cookies (b)"])
    assert _find(tmp_path, "POST", url, b'{"q": 2}', [("Cookie", "a=1; b=2")]) == ([], ["header accept-language"])
    matches, _ = archive.find(tmp_path, "POST", url, archive.describe(b'{"q": 1}', same))
    assert matches[0][1]["headers"] == [["X-A", "1"]]  # encoding headers dropped: bodies are stored decoded


def test_the_header_set_is_configurable_and_cookies_can_be_left_out(tmp_path):
    archive.save(tmp_path, "GET", "http://a.test/", b"", 200, [], b"v", [("Cookie", "id=1"), ("X-Lang", "fr")],
                 match_headers=["X-Lang"], match_cookies=False)
    assert _find(tmp_path, "GET", "http://a.test/", headers=[("Cookie", "id=2"), ("x-lang", "fr")]) == ([b"v"], [])
    assert _find(tmp_path, "GET", "http://a.test/", headers=[("x-lang", "en")]) == ([], ["header x-lang"])


def test_an_archive_from_before_matches_on_method_url_and_body_only(tmp_path):
    """Entries of older archives: `<sha256(METHOD URL + sha256(body))>.json`, no `match` field."""
    old = {"method": "POST", "url": "http://api.test/q", "status": 200, "headers": [], "content_b64": "b2xk"}
    name = hashlib.sha256(b"POST http://api.test/q " + hashlib.sha256(b"q=1").digest()).hexdigest()
    (tmp_path / f"{name}.json").write_text(json.dumps(old))
    assert _find(tmp_path, "POST", "http://api.test/q", b"q=1", [("Cookie", "any=1")]) == ([b"old"], [])
    assert _find(tmp_path, "POST", "http://api.test/q", b"q=2") == ([], [])
    archive.save(tmp_path, "POST", "http://api.test/q", b"q=1", 200, [], b"new")  # a later recording comes after
    assert _find(tmp_path, "POST", "http://api.test/q", b"q=1") == ([b"old", b"new"], [])


def test_the_digest_follows_the_recorded_bytes(tmp_path):
    empty = archive.archive_digest(tmp_path / "absent")
    archive.save(tmp_path, "GET", "http://a.test/", b"", 200, [], b"v1")
    first = archive.archive_digest(tmp_path)
    assert first != empty and first == archive.archive_digest(tmp_path)
    archive.save(tmp_path, "GET", "http://a.test/b", b"", 200, [], b"v1")
    assert archive.archive_digest(tmp_path) != first


def test_rule_files_load_and_bad_rules_name_the_field(tmp_path):
    good = tmp_path / "web_rules.yaml"
    good.write_text("block:\n  - id: pay\n    methods: [POST]\n    url: '/pay\\b'\n")
    assert [(r.id, r.methods) for r in load_rules(good)] == [("pay", ["POST"])]
    bad = tmp_path / "bad.yaml"
    bad.write_text("block:\n  - id: pay\n    url: '(unclosed'\n")
    with pytest.raises(CatalogError, match=r"bad.yaml: block.0.url: expected .*regex"):
        load_rules(bad)


@pytest.mark.parametrize(("method", "url", "blocked"), [
    ("POST", "https://shop.test/checkout", True), ("POST", "https://hotel.test/api/booking/confirm", True),
    ("POST", "https://x.test/payments", True), ("PUT", "https://mail.test/messages/send", True),
    ("GET", "https://shop.test/checkout", False), ("POST", "https://search.test/query", False),
])
def test_the_irreversible_starting_set(method, url, blocked):
    hit = any(method in r.methods and re.search(r.url, url) for r in IRREVERSIBLE_RULES)
    assert hit == blocked
