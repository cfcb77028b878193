"""A provider model without its key is refused before anything starts; scripted models need none."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from clawmark.cli.main import app
from clawmark.gateway.provider_preflight import MissingProviderKey, missing_keys, require_keys


def test_missing_keys_by_provider(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert missing_keys("anthropic/claude-sonnet-4-6") == ["ANTHROPIC_API_KEY"]
    assert missing_keys("scripted/ref-{task_id}") == []
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-not-a-key")
    assert missing_keys("anthropic/claude-sonnet-4-6") == []


def test_require_keys_names_every_model_and_variable(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(MissingProviderKey, match="anthropic/x needs ANTHROPIC_API_KEY; openai/y needs OPENAI_API_KEY"):
        require_keys(["openai/y", "anthropic/x", "scripted/demo"])
    require_keys(["openai/y"], api_base="http://127.0.0.1:9/v1")  # a self-hosted endpoint: no key needed


def test_clawmark_run_without_a_key_fails_before_any_container(monkeypatch, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = CliRunner().invoke(app, ["run", "clawmark-fixtures__iniparse-py-1", "--claw", "reference",
                                      "--model", "anthropic/claude-sonnet-4-6", "--results", str(tmp_path)])
    assert result.exit_code == 1 and "needs ANTHROPIC_API_KEY" in result.output
    assert not any(tmp_path.iterdir())  # no row, no artifact folder: nothing was provisioned
