"""Prefect blocks turn into core configuration: the key goes to the environment only, masked in
the block itself; the Docker host is exported for the SDK; the store block gives a ResultStore."""

from __future__ import annotations

import os

from blocks import DockerHost, ModelEndpoint, ResultStoreBlock
from clawmark.results import ResultStore


def test_model_endpoint_exports_its_key_and_never_shows_it(monkeypatch):
    monkeypatch.delenv("CLAWMARK_TEST_KEY", raising=False)
    block = ModelEndpoint(model="anthropic/claude-sonnet-4-6", api_key_env="CLAWMARK_TEST_KEY", api_key="sk-secret")
    assert "sk-secret" not in repr(block) and "sk-secret" not in block.model_dump_json()
    block.export_key()
    assert os.environ["CLAWMARK_TEST_KEY"] == "sk-secret"


def test_model_endpoint_without_key_changes_nothing(monkeypatch):
    monkeypatch.delenv("CLAWMARK_TEST_KEY", raising=False)
    ModelEndpoint(model="scripted/demo").export_key()
    assert "CLAWMARK_TEST_KEY" not in os.environ


def test_docker_host_and_result_store(monkeypatch, tmp_path):
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    DockerHost(base_url="tcp://10.0.0.5:2376").export()
    assert os.environ["DOCKER_HOST"] == "tcp://10.0.0.5:2376"
    store = ResultStoreBlock(root=str(tmp_path)).store()
    assert isinstance(store, ResultStore) and store.sweeps() == []
