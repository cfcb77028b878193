"""What a newcomer meets first: a purpose line in --help, and tables that do not fold ids in logs."""

from __future__ import annotations

from typer.testing import CliRunner

from clawmark.cli.main import app
from clawmark.settings import TASKS_CATALOG


def test_help_opens_with_what_clawmark_is_for():
    out = CliRunner().invoke(app, ["--help"]).output
    assert "Benchmark agent harnesses" in out
    assert "Each area owns" not in out and "module" not in out.split("Options")[0]


def test_catalog_list_without_a_terminal_keeps_every_id_whole():
    result = CliRunner().invoke(app, ["catalog", "list", "--catalog", str(TASKS_CATALOG)])
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    for task_dir in sorted((TASKS_CATALOG / "closed_loop").glob("*_*_*/task.yaml")):
        assert task_dir.parent.name in result.output
