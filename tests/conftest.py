"""Shared fixtures. Docker-backed tests fail (never skip) when no engine answers:
`make test` starts one, and CI must run them for real."""

from __future__ import annotations

import os
import tempfile

import pytest

# Hermetic, quiet and offline before anything imports litellm or prefect.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "60")
os.environ.pop("PREFECT_API_URL", None)
os.environ.setdefault("PREFECT_HOME", tempfile.mkdtemp(prefix="clawmark-prefect-"))


@pytest.fixture(scope="session")
def docker_client():
    """A live Docker client; fails the test when no engine answers."""
    import docker

    try:
        client = docker.from_env()
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure here means "no engine"
        pytest.fail(f"Docker engine not reachable ({exc}); run `make engine` or `bash scripts/engine-up.sh`")
    return client
