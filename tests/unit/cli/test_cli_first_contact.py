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


def test_ledger_table_without_a_terminal_keeps_every_header_whole(tmp_path):
    from clawmark.gateway.ledger import TOKEN_FIELDS

    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text("")
    result = CliRunner().invoke(app, ["gateway", "ledger", str(ledger)])
    assert result.exit_code == 0, result.output
    assert "…" not in result.output and all(field in result.output for field in TOKEN_FIELDS)


def test_a_sweep_whose_judge_lacks_its_key_fails_before_anything_is_pinned(tmp_path, monkeypatch):
    import yaml

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    spec = tmp_path / "judged.yaml"
    spec.write_text(yaml.safe_dump({"sweep_id": "judged", "instances": None, "claws": ["reference"],
                                    "models": ["scripted/cl-{task_id}"],
                                    "closed_loop": {"tasks": ["en_101_sales_total"],
                                                    "attempt": {"supervisor_model": "anthropic/claude-sonnet-4-6"}}}))
    result = CliRunner().invoke(app, ["sweep", str(spec), "--results", str(tmp_path / "results")])
    assert result.exit_code == 2 and "anthropic/claude-sonnet-4-6 needs ANTHROPIC_API_KEY" in result.output
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").rglob("config.json"))
