"""`clawmark claws list`: one row per registered claw with its adapter's exact version, and a
missing opt-in image (ZeroClaw) said plainly to need the real binary."""

from __future__ import annotations

from typer.testing import CliRunner

from clawmark.claws import claw_names, get_claw
from clawmark.cli.claws import claw_rows
from clawmark.cli.main import app


def _no_images(monkeypatch):
    import clawmark.runtime.images as images

    monkeypatch.setattr(images, "image_present", lambda ref: False)  # an engine without claw images


def test_every_claw_has_a_row_with_its_adapter_version(monkeypatch):
    _no_images(monkeypatch)
    rows = {row["claw"]: row for row in claw_rows()}
    assert sorted(rows) == claw_names()
    assert all(row["version"] == get_claw(name).version for name, row in rows.items())
    assert rows["openclaw"]["version"] == "2026.9.6" and rows["openclaw"]["in container"] == "yes"
    assert rows["oracle"]["tracks"] == "patch" and rows["reference"]["image"] == "- (runs on the host)"
    assert rows["openclaw"]["image"] == "missing: clawmark images build claw-openclaw"
    assert rows["edict-3role"]["note"].startswith("TEST DOUBLE of edict") and not rows["openclaw"]["note"]


def test_zeroclaw_says_the_binary_must_be_supplied(monkeypatch):
    _no_images(monkeypatch)
    result = CliRunner().invoke(app, ["claws", "list"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if "zeroclaw" in line)
    assert "0.8.4" in line and "the real binary must be supplied" in line
    assert "edict-3role: TEST DOUBLE of edict" in result.output and "edict: needs setting `checkout`" in result.output


def test_a_profile_lists_its_claws_at_the_versions_it_pins(monkeypatch):
    _no_images(monkeypatch)
    result = CliRunner().invoke(app, ["claws", "list", "--profile", "ucb-paper"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    lines = {name: next(line for line in result.output.splitlines() if f" {name} " in line)
             for name in ("openclaw", "nanobot", "edict")}
    assert "2026.3.11" in lines["openclaw"] and "images build claw-openclaw-2026.3.11" in lines["openclaw"]
    assert "0.1.5.post3" in lines["nanobot"] and "hermes" not in result.output
    assert "+openclaw.2026.3.11" in lines["edict"] and "images build claw-openclaw-2026.3.11" in lines["edict"]
    rows = {row["claw"]: row["version"] for row in claw_rows("csb-paper")}
    assert rows == {"openclaw": "2026.9.6", "nanobot": "0.3.5", "hermes": "0.19.0", "genericagent": "1.0.7",
                    "zeroclaw": "0.8.4"}
    unknown = CliRunner().invoke(app, ["claws", "list", "--profile", "nature-paper"])
    assert unknown.exit_code == 2 and "ucb-paper" in unknown.output
