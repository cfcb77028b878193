"""Fixtures of the fault tests (the Prefect server is tests/conftest.py's `prefect_harness`): the
fault cassettes on the search path, and sweep limits set to what each test needs."""

from __future__ import annotations

from pathlib import Path

import pytest

CASSETTES = Path(__file__).parent / "cassettes"


@pytest.fixture
def fault_cassettes(monkeypatch):
    monkeypatch.setenv("CLAWMARK_CASSETTES", str(CASSETTES))
