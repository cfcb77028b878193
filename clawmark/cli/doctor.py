"""`clawmark doctor`: is this machine ready to run clawmark?"""

from __future__ import annotations


def doctor() -> None:
    """Check engine, images, disk, Prefect home and gateway settings (being built)."""
    raise NotImplementedError
