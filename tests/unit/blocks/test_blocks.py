"""Prefect blocks turn into core configuration: the key goes to the environment only, masked in
the block itself; the Docker host is exported for the SDK; the store block gives a ResultStore."""

from __future__ import annotations

import os

from blocks import DockerHost, ModelEndpoint, ResultStoreBlock
from clawmark.results import ResultStore


def _owned_by_monkeypatch(monkeypatch, name: str) -> None:
    """setenv then delenv: pytest then restores the variable after the test, whatever the code
    under test writes to it (a bare delenv of an unset variable records nothing to undo)."""
    monkeypatch.setenv(name, "placeholder")
    monkeypatch.delenv(name)


def test_model_endpoint_exports_its_key_and_never_shows_it(monkeypatch):
    _owned_by_monkeypatch(monkeypatch, "CLAWMARK_TEST_KEY")
    block = ModelEndpoint(model="anthropic/claude-sonnet-4-6", api_key_env="CLAWMARK_TEST_KEY", api_key="sk-secret")
    assert "sk-secret" not in repr(block) and "sk-secret" not in block.model_dump_json()
    block.export_key()
    assert os.environ["CLAWMARK_TEST_KEY"] == "sk-secret"


def test_model_endpoint_without_key_changes_nothing(monkeypatch):
    _owned_by_monkeypatch(monkeypatch, "CLAWMARK_TEST_KEY")
    ModelEndpoint(model="scripted/demo").export_key()
    assert "CLAWMARK_TEST_KEY" not in os.environ


def test_docker_host_and_result_store(monkeypatch, tmp_path):
    _owned_by_monkeypatch(monkeypatch, "DOCKER_HOST")
    DockerHost(base_url="tcp://127.0.0.1:2376").export()  # never contacted: only the variable is read
    assert os.environ["DOCKER_HOST"] == "tcp://127.0.0.1:2376"
    store = ResultStoreBlock(root=str(tmp_path)).store()
    assert isinstance(store, ResultStore) and store.sweeps() == []
