"""`clawmark swe grade`: grade a saved test log against an instance, no Docker."""

from __future__ import annotations


def grade() -> None:
    """Grade a saved log (being built)."""
    raise NotImplementedError
