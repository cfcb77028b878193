"""Typed failures of the web proxy: the world's fault (infra), never the claw's."""

from __future__ import annotations

from clawmark.runtime.errors import RuntimeFailure


class WebProxyError(RuntimeFailure):
    """The web proxy could not start, or its CA could not be installed in the task container."""


class WebArchiveMissing(WebProxyError):
    """Replay was asked for a task that has no recorded web archive."""
