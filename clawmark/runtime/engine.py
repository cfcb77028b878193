"""The Docker engine: one place that connects, pings and says what to do when nothing answers."""

from __future__ import annotations

import os
import time
from functools import lru_cache
from typing import TYPE_CHECKING

import requests

from clawmark.runtime.errors import EngineUnavailable

if TYPE_CHECKING:
    import docker

HINT = "start one with `make engine` (or `bash scripts/engine-up.sh`), or point DOCKER_HOST at a running engine"


def docker_client(timeout_s: float = 120) -> "docker.DockerClient":
    """A client for the engine in the environment (DOCKER_HOST or the local socket), pinged.

    Raises EngineUnavailable with an actionable message when no engine answers.
    """
    import docker  # heavy (Docker SDK): loaded on first engine use

    try:
        client = docker.from_env(timeout=int(timeout_s))
        client.ping()
    except (docker.errors.DockerException, requests.exceptions.ConnectionError) as exc:
        raise EngineUnavailable(f"Docker engine not reachable ({_first_line(exc)}); {HINT}") from exc
    return client


def shared_client(timeout_s: float = 120) -> "docker.DockerClient":
    """One pinged client per process and engine (DOCKER_HOST and its TLS settings, as they are now:
    a test that points them at a private engine gets that engine's client); the docker SDK client is
    thread-safe for our use. Made once: a new client costs a version round trip and ~20 ms of CPU."""
    engine = (os.environ.get("DOCKER_HOST"), os.environ.get("DOCKER_TLS_VERIFY"), os.environ.get("DOCKER_CERT_PATH"))
    return _client_for(engine, timeout_s)


@lru_cache(maxsize=8)
def _client_for(engine: tuple[str | None, ...], timeout_s: float) -> "docker.DockerClient":
    return docker_client(timeout_s)


shared_client.cache_clear = _client_for.cache_clear  # type: ignore[attr-defined]


class EngineStayedDown(EngineUnavailable):
    """The engine did not come back within the wait: a sweep stops scheduling instead of turning
    every remaining cell into an infra row."""

    def __init__(self, waited_s: float, not_run: int) -> None:
        super().__init__(f"Docker engine still not answering after {waited_s:.0f} s: the sweep stopped with "
                         f"{not_run} cell(s) not run (no row); {HINT}, then run the sweep again "
                         "(rerun-failed redoes the cells the outage turned into infra rows)")


def engine_answers(timeout_s: float = 10) -> bool:
    """Whether the engine answers a ping now (asked before every cell): over a kept client, whose
    connection is made again after an engine restart."""
    import docker  # noqa: PLC0415 - loaded by shared_client already

    try:
        shared_client(timeout_s).ping()
    except (EngineUnavailable, docker.errors.DockerException, requests.exceptions.RequestException):
        return False
    return True


def wait_for_engine(timeout_s: float, poll_s: float = 2.0) -> bool:
    """True as soon as an engine answers (at once when it is up), False after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not engine_answers():
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll_s)
    return True


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]
