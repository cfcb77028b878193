"""`clawmark swe evaluate`: evaluate predictions in fresh instance containers."""

from __future__ import annotations


def evaluate() -> None:
    """Evaluate predictions (being built)."""
    raise NotImplementedError
