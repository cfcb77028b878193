"""`clawmark doctor` passes on a ready machine and fails, naming the piece, without an engine."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from clawmark.cli.main import app
from clawmark.runtime.images import ensure_image
from clawmark.runtime.recipes import discover

pytestmark = pytest.mark.docker


def test_doctor_passes_when_engine_and_images_are_ready(docker_client):
    for name, recipe in discover().items():
        if not recipe.opt_in:  # opt-in images (zeroclaw, desktop) may be absent: doctor only warns
            ensure_image(name)
    result = CliRunner().invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    assert "docker engine" in result.output and "image python" in result.output


def test_doctor_fails_without_an_engine(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:1")
    result = CliRunner().invoke(app, ["doctor"])
    assert result.exit_code == 1
    assert "not ready: docker engine" in result.output and "Traceback" not in result.output
