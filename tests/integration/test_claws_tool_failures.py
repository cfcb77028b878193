"""Tool failures of the reference claw inside a real instance container are observations for the
model (issue 7 part 3): a symlink is read through its target, a folder, a binary file and a
dangling link each come back as an error line, and the loop goes on to submit — the row is a
measured outcome, never an infra error that a sweep would rerun forever."""

from __future__ import annotations

import json

import pytest

from clawmark.results import ErrorKind, Status
from tests.support.attempt_fixtures import INI, attempt, gateway, store  # noqa: F401

pytestmark = pytest.mark.docker


def test_odd_paths_are_observations_and_the_claw_submits(store, gateway):  # noqa: F811
    row = attempt(INI, "reference", f"scripted/ref-odd-files-{INI}", store, gateway)
    layout = store.layout(row.sweep_id, row.cell_key)
    turn = json.loads((layout.logs / "turn-0.json").read_text())
    assert (turn["exit_status"], row.status, row.error_kind) == ("submitted", Status.EMPTY_PATCH, ErrorKind.MODEL)
    messages = json.loads((layout.transcript / "transcript-turn0.json").read_text())["messages"]
    observations = [m["content"] for m in messages if m["role"] == "tool"]
    assert "COMMENT_PREFIXES" in observations[1]  # link.py read through its target
    assert observations[2] == "error: iniparse is a directory, not a file (list it with bash: ls iniparse)"
    assert observations[3] == "error: blob.bin is a binary file (4 bytes); inspect it with bash (e.g. xxd | head)"
    assert observations[4] == "error: dangling is a symlink whose target does not exist"
    assert observations[5].startswith("[exit code 0]") and observations[6] == "submitted"
