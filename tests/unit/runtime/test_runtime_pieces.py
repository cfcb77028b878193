"""Small runtime pieces without Docker: output bounding, owner labels, user specs, engine errors."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from clawmark.runtime import owner
from clawmark.runtime.engine import docker_client
from clawmark.runtime.errors import EngineUnavailable
from clawmark.runtime.execution import _BoundedBuffer


def test_bounded_buffer_keeps_head_and_tail_within_cap():
    buffer = _BoundedBuffer(cap=10)
    for chunk in (b"HEAD", b"-middle-" * 100, b"TAIL"):
        buffer.add(chunk)
    text = buffer.text()
    assert text.startswith("HEAD") and text.endswith("TAIL")
    assert buffer.dropped == 4 + 800 + 4 - 10


def test_bounded_buffer_untouched_below_cap():
    buffer = _BoundedBuffer(cap=100)
    buffer.add(b"short")
    assert (buffer.text(), buffer.dropped) == ("short", 0)


def test_owner_labels_describe_this_process():
    labels = owner.owner_labels()
    assert labels["clawmark.owner_pid"] == str(os.getpid())
    assert not owner.owner_is_gone(labels)


def test_owner_is_gone_after_its_process_exits():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    labels = owner.owner_labels(child.pid)
    child.wait()
    assert owner.owner_is_gone(labels)


def test_owner_on_another_host_is_never_judged_gone():
    labels = {**owner.owner_labels(), "clawmark.owner_host": "elsewhere", "clawmark.owner_pid": "999999999"}
    assert not owner.owner_is_gone(labels)


@pytest.mark.parametrize("spec, expected", [
    (None, None), ("1000", (1000, 1000)), ("1000:50", (1000, 50)), ("nobody", None), ("1:x", None),
])
def test_numeric_user(spec, expected):
    assert owner.numeric_user(spec) == expected


def test_no_engine_gives_an_actionable_error(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:1")
    with pytest.raises(EngineUnavailable, match="make engine"):
        docker_client(timeout_s=5)
