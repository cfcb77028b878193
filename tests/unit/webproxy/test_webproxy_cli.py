"""`clawmark run --web/--web-rules`: bad values are one-line errors naming the option, before
any engine or gateway is touched."""

from __future__ import annotations

from typer.testing import CliRunner

from clawmark.cli.main import app

BASE = ["run", "en_101_sales_total", "--claw", "reference", "--model", "scripted/cl-en_101_sales_total"]


def test_an_unknown_web_mode_names_the_option():
    result = CliRunner().invoke(app, [*BASE, "--web", "rewind"])
    assert result.exit_code != 0 and "--web" in result.output and "record" in result.output


def test_a_bad_rules_file_names_the_file_and_field(tmp_path):
    rules = tmp_path / "rules.yaml"
    rules.write_text("block:\n  - id: pay\n    url: '(unclosed'\n")
    result = CliRunner().invoke(app, [*BASE, "--web", "replay", "--web-rules", str(rules)])
    assert result.exit_code != 0
    assert f"--web-rules: {rules}: block.0.url: expected" in " ".join(result.output.split())
