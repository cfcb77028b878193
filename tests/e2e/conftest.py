from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def prefect_harness():
    """One temporary Prefect server (SQLite) for all flow tests: it takes ~10 s to start."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield
