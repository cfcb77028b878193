"""Fixtures of the fault tests: one Prefect server for the session (real flows run on it), the
fault cassettes on the search path, and sweep limits set to what each test needs."""

from __future__ import annotations

from pathlib import Path

import pytest

CASSETTES = Path(__file__).parent / "cassettes"


@pytest.fixture(scope="session")
def prefect_harness():
    """One temporary Prefect server (SQLite) for all fault tests: it takes ~10 s to start."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture
def fault_cassettes(monkeypatch):
    monkeypatch.setenv("CLAWMARK_CASSETTES", str(CASSETTES))
