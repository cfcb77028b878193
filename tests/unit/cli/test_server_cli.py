"""`clawmark server start`'s environment: hermetic, quiet, the UI told its real API address, and a
database URL described without its password."""

from __future__ import annotations

from pathlib import Path

from clawmark.cli.server import DB_SETTING, describe_database, server_env


def test_server_env_is_hermetic_and_points_the_ui_at_its_own_port(monkeypatch, tmp_path):
    monkeypatch.setenv("PREFECT_API_URL", "http://elsewhere:4200/api")
    env = server_env(tmp_path, None, "127.0.0.1", 4321)
    assert "PREFECT_API_URL" not in env and DB_SETTING not in env
    assert env["PREFECT_HOME"] == str(tmp_path) and env["PREFECT_UI_API_URL"] == "http://127.0.0.1:4321/api"
    assert env["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false" and env["DO_NOT_TRACK"] == "1"


def test_a_database_url_is_shown_without_its_password(tmp_path):
    env = server_env(tmp_path, "postgresql+asyncpg://clawmark:s3cret@db.local:6543/prefect", "127.0.0.1", 1)
    shown = describe_database(env, tmp_path)
    assert shown == "postgresql+asyncpg at db.local:6543/prefect" and "s3cret" not in shown
    assert describe_database(server_env(tmp_path, None, "127.0.0.1", 1), Path("/h")) == "SQLite in /h"
