"""The web archive's keys and digest, and block-rule files: what replay and the task hash rely on."""

from __future__ import annotations

import re

import pytest

from clawmark.catalog.errors import CatalogError
from clawmark.webproxy import IRREVERSIBLE_RULES, load_rules
from clawmark.webproxy import archive


def test_first_recording_wins_and_the_fragment_is_not_part_of_the_key(tmp_path):
    assert archive.save(tmp_path, "GET", "http://shop.test/a#top", b"", 200, [("Content-Type", "text/html")], b"one")
    assert not archive.save(tmp_path, "get", "http://shop.test/a", b"", 200, [], b"two")
    entry = archive.lookup(tmp_path, "GET", "http://shop.test/a#other", b"")
    assert entry["content_b64"] == "b25l" and entry["headers"] == [["Content-Type", "text/html"]]
    assert archive.lookup(tmp_path, "POST", "http://shop.test/a", b"") is None
    assert archive.lookup(tmp_path, "GET", "http://shop.test/a?x=1", b"") is None


def test_request_bodies_are_part_of_the_key_and_encoding_headers_are_dropped(tmp_path):
    archive.save(tmp_path, "POST", "http://api.test/q", b'{"q": 1}', 200,
                 [("Content-Encoding", "gzip"), ("Content-Length", "9"), ("X-A", "1")], b"r1")
    assert archive.lookup(tmp_path, "POST", "http://api.test/q", b'{"q": 2}') is None
    assert archive.lookup(tmp_path, "POST", "http://api.test/q", b'{"q": 1}')["headers"] == [["X-A", "1"]]


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
