"""Finding, from a test's side thread, the one container that reached a point of its run: the
first container with the given labels in which a marker file exists (looked at as root)."""

from __future__ import annotations

import threading
import time

import docker


def wait_for_marked(client: docker.DockerClient, labels: list[str], marker: str, patience_s: float, *,
                    stop: threading.Event | None = None, poll_s: float = 0.5):
    """The container, or None after `patience_s` or once `stop` is set. A listed container may
    stop or go before it is looked into (another test's, a set-up capture, an evaluation that
    ended): it is passed over, never raised from the side thread, which would end it unseen."""
    deadline = time.monotonic() + patience_s  # a bound on waiting, not a speed claim
    while time.monotonic() < deadline and not (stop is not None and stop.is_set()):
        for container in client.containers.list(filters={"label": labels}, ignore_removed=True):
            try:
                if container.exec_run(["test", "-f", marker], user="0").exit_code == 0:
                    return container
            except docker.errors.APIError:  # stopped or gone since the listing (409, 404)
                continue
        time.sleep(poll_s)
    return None
