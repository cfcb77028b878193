"""The Docker engine: one place that connects, pings and says what to do when nothing answers."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from clawmark.runtime.errors import EngineUnavailable

if TYPE_CHECKING:
    import docker

HINT = "start one with `make engine` (or `bash scripts/engine-up.sh`), or point DOCKER_HOST at a running engine"


def docker_client(timeout_s: float = 120) -> "docker.DockerClient":
    """A client for the engine in the environment (DOCKER_HOST or the local socket), pinged.

    Raises EngineUnavailable with an actionable message when no engine answers.
    """
    import docker
    import requests

    try:
        client = docker.from_env(timeout=int(timeout_s))
        client.ping()
    except (docker.errors.DockerException, requests.exceptions.ConnectionError) as exc:
        raise EngineUnavailable(f"Docker engine not reachable ({_first_line(exc)}); {HINT}") from exc
    return client


@lru_cache(maxsize=1)
def shared_client() -> "docker.DockerClient":
    """One pinged client per process; the docker SDK client is thread-safe for our use."""
    return docker_client()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]
