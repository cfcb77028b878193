"""`clawmark run TASK_ID --claw NAME --model MODEL`: one attempt of either track."""

from __future__ import annotations


def run() -> None:
    """Run one attempt (being built)."""
    raise NotImplementedError
