"""`clawmark show` prints each turn's transcript as the judge read it: the normalised messages and
tool calls (here an OpenClaw turn recorded from the real claw), never its export's event JSON."""

from __future__ import annotations

import json
import shutil

from typer.testing import CliRunner

from clawmark.attempts.closed_loop_transcript import visible_messages
from clawmark.cli.main import app
from clawmark.settings import PROJECT_ROOT

RECORDED = PROJECT_ROOT / "tests" / "fixtures" / "transcripts"


def _attempt(tmp_path, claw: str, save: bool):
    cycle = tmp_path / "cycles" / "0"
    shutil.copytree(RECORDED / claw, cycle / "transcript")
    (tmp_path / "config.json").write_text(json.dumps({"task_id": "fx_101_sum", "claw": {"name": claw}}))
    if save:
        visible_messages(cycle)  # what the live cycle does before judging
    return tmp_path


def test_show_prints_the_saved_transcript_of_each_turn(tmp_path):
    result = CliRunner().invoke(app, ["show", str(_attempt(tmp_path, "openclaw", save=True)), "--messages", "3"])
    assert result.exit_code == 0, result.output
    lines = result.output.split("── turn 1 ──")[1].splitlines()
    assert lines[2:4] == ["  transcript: 4 messages, 1 tool calls (exec×1)", "    ... 1 earlier messages"]
    assert lines[4].startswith('    [assistant] Writing the summary. ⏎   -> tool call exec({"command": "mkdir -p')
    assert len(lines[4]) == 164 and lines[4].endswith("…")
    assert lines[5:7] == ['    [tool exec] {"total": 790.0, "top_region": "East"}h19-tool-ran',
                          "    [assistant] H19-FINAL: saved summary.json (total 790.0, top region East)."]
    assert "traceSchema" not in result.output


def test_show_normalises_an_older_attempt_without_writing_to_it(tmp_path):
    folder = _attempt(tmp_path, "nanobot", save=False)
    result = CliRunner().invoke(app, ["show", str(folder)])
    assert result.exit_code == 0, result.output
    assert "transcript: 4 messages, 1 tool calls (exec×1)" in result.output and "[tool exec]" in result.output
    assert not (folder / "cycles" / "0" / "transcript.json").exists()
