"""What the attempt takes from an attempt's web folder and archive: row counts, the blocked
requests shown to the supervisor, and the task hash with replay on or off."""

from __future__ import annotations

import json

import pytest

from clawmark.catalog.package import load_task
from clawmark.webproxy import WebProxyConfig, WebProxyError, archive, blocked_requests_note, row_web_counts, web_task_hash
from clawmark.webproxy.proxied_task import ProxiedTaskEnv
from tests.support.taskenv_fixtures import make_package


def test_row_counts_are_null_without_a_proxy_and_read_from_its_stats(tmp_path):
    assert row_web_counts(tmp_path / "absent") == {"web_hits": None, "web_misses": None}
    (tmp_path / "webproxy.json").write_text(json.dumps({"mode": "replay", "hits": 3, "misses": 1}))
    assert row_web_counts(tmp_path) == {"web_hits": 3, "web_misses": 1}


def test_blocked_requests_become_one_evidence_section(tmp_path):
    assert blocked_requests_note(tmp_path) == []
    (tmp_path / "blocked").mkdir()
    (tmp_path / "blocked" / "0001.json").write_text(json.dumps(
        {"rule": "pay", "method": "POST", "url": "https://shop.test/pay", "body": "card=4111",
         "body_encoding": "utf-8", "body_bytes": 9}))
    (tmp_path / "blocked" / "0002.json").write_text(json.dumps(
        {"rule": "send", "method": "PUT", "url": "https://mail.test/send", "body": "AAEC",
         "body_encoding": "base64", "body_bytes": 3}))
    (note,) = blocked_requests_note(tmp_path)
    assert note.splitlines() == ["## Web requests blocked by the benchmark (never sent; 2 in all)",
                                 "- POST https://shop.test/pay (rule pay): card=4111",
                                 "- PUT https://mail.test/send (rule send): <3 bytes, binary>"]


def test_the_archive_enters_the_task_hash_only_when_replaying(tmp_path):
    task = load_task(make_package(tmp_path, "hash_me"))
    replay = WebProxyConfig(mode="replay", archive_root=tmp_path / "archives")
    assert web_task_hash(task, None) == web_task_hash(task, replay.model_copy(update={"mode": "record"})) == task.content_hash()
    empty = web_task_hash(task, replay)
    archive.save(replay.archive_dir("hash_me"), "GET", "http://a.test/", b"", 200, [], b"v1")
    recorded = web_task_hash(task, replay)
    assert len({task.content_hash(), empty, recorded}) == 3
    assert web_task_hash(task, replay.model_copy(update={"mode": "replay-or-live"})) == recorded


def test_the_registries_only_policy_is_refused_with_the_proxy(tmp_path):
    from clawmark.taskenv import TaskEnvConfig

    task = load_task(make_package(tmp_path, "no_double_proxy"))
    with pytest.raises(WebProxyError, match="use network_policy none"):
        ProxiedTaskEnv(task, TaskEnvConfig(network_policy="registries-only"), tmp_path, WebProxyConfig(), tmp_path / "web")
