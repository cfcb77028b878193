"""A Prefect server on PostgreSQL (Debian's, started by scripts/postgres-up.sh) runs a sweep: the
server is `clawmark server start` with Prefect's own database URL setting, on a fresh database,
and the sweep is the real `clawmark sweep` against it."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid

import pytest
import yaml

from clawmark.results import ResultStore
from clawmark.settings import TASKS_CATALOG
from tests.support.prefect_server import client_env, run, running_server

pytestmark = [pytest.mark.docker, pytest.mark.slow]
ADMIN_URL = os.environ.get("CLAWMARK_TEST_POSTGRES_URL", "postgresql+asyncpg://clawmark:clawmark@127.0.0.1:5432/postgres")


def _sql(url: str, *statements: str) -> list[list[tuple]]:
    import asyncpg

    async def go():
        connection = await asyncpg.connect(url.replace("+asyncpg", ""), timeout=30)
        try:
            return [[tuple(r) for r in await connection.fetch(s)] for s in statements]
        finally:
            await connection.close()

    return asyncio.run(go())


@pytest.fixture
def fresh_database():
    name = f"clawmark_{uuid.uuid4().hex[:12]}"
    try:
        _sql(ADMIN_URL, f"CREATE DATABASE {name}")
    except Exception as exc:  # noqa: BLE001 - refused, bad password, no server: all mean "set it up"
        pytest.fail(f"PostgreSQL not reachable at {ADMIN_URL.split('@')[-1]} ({exc}); run `bash scripts/postgres-up.sh`")
    yield ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    _sql(ADMIN_URL, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_a_postgresql_backed_server_runs_a_sweep(docker_client, fresh_database, tmp_path):
    spec_file = tmp_path / "pg.yaml"
    spec_file.write_text(yaml.safe_dump({
        "sweep_id": "pg", "instances": str(TASKS_CATALOG / "swe" / "instances.jsonl"),
        "tasks": ["clawmark-fixtures__iniparse-py-1"], "claws": ["oracle", "nop"], "models": ["scripted/demo"],
        "max_parallel": 2}))
    home, results = tmp_path / "prefect-home", tmp_path / "results"
    with running_server(home, database_url=fresh_database) as ui_url:
        output = run([sys.executable, "-m", "clawmark.cli.main", "sweep", str(spec_file), "--results", str(results)],
                     client_env(ui_url, tmp_path / "client-home"))
        [runs] = _sql(fresh_database, "SELECT f.name, r.state_type FROM flow_run r JOIN flow f ON f.id = r.flow_id")
    assert "2 run, 0 reused" in output
    assert sorted(ResultStore(results).read("pg")["status"]) == ["empty_patch", "resolved"]
    assert ("sweep", "COMPLETED") in runs  # the server kept the sweep's flow run in PostgreSQL ...
    assert not list(home.glob("*.db"))  # ... and made no SQLite database
