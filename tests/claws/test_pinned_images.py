"""The pinned-version images (UniClawBench's OpenClaw 2026.3.11 and Nanobot 0.1.5.post3) run a real
patch attempt under the ucb-paper profile through the scripted model: it resolves, the row names
the profile and the version, the claw's own session files (JSONL in both releases, in other places
than today's versions) are read into the transcript, and the gateway ledger is the row's usage.
One attempt per image: they are not part of the conformance matrix (tests/claws/kit.py).

OpenClaw 2026.3 has no working-directory setting: its exec tool starts in the agent's own
workspace (kept apart from /testbed), so a model following the prompt names /testbed as the
call's `workdir`; its cassette is the kit's with that argument added."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from clawmark.claws.profiles import ProfileUse
from clawmark.claws.transcripts import read_transcript
from clawmark.gateway.ledger import read_ledger
from clawmark.results import Status
from tests.claws.kit import CASSETTES, FIX_MARK, TURN0_MARK
from tests.support.attempt_fixtures import INI, INSTANCES

pytestmark = pytest.mark.docker


@pytest.mark.parametrize(("claw_name", "version"), [("openclaw", "2026.3.11"), ("nanobot", "0.1.5.post3")])
def test_a_pinned_image_resolves_and_its_session_and_usage_are_read(claw_name, version, provider, gateway, store,
                                                                   monkeypatch, tmp_path):
    from clawmark.attempts.patch import PatchAttemptConfig, run_patch_attempt

    model = f"scripted/kit-{claw_name}"
    if claw_name == "openclaw":
        model = f"scripted/{_with_workdir(CASSETTES / 'kit-openclaw.yaml', tmp_path / 'pinned-openclaw.yaml')}"
        monkeypatch.setenv("CLAWMARK_CASSETTES", os.pathsep.join([str(tmp_path), os.environ["CLAWMARK_CASSETTES"]]))
    row = run_patch_attempt(INSTANCES[INI], claw_name, model, 0, store, "pinned", gateway,
                            config=PatchAttemptConfig(profile=ProfileUse(name="ucb-paper")))
    layout = store.layout(row.sweep_id, row.cell_key)
    assert (row.status, row.resolved, row.error_message) == (Status.RESOLVED, True, None)
    assert (row.claw_version, row.claw_profile) == (version, "ucb-paper")
    assert json.loads(row.claw_profile_fixed)["image"] == f"claw-{claw_name}-{version}"
    assert "_strip_inline_comment" in layout.patch.read_text()
    messages = read_transcript(layout.transcript)
    assert any(TURN0_MARK in m.text for m in messages if m.role == "assistant")
    assert any(FIX_MARK in m.text for m in messages if m.role == "tool")
    assert any(call.name == "exec" for m in messages for call in m.tool_calls)
    ledger = read_ledger(layout.ledger)
    assert ledger and row.usage["executor"].calls == len(ledger)
    assert row.usage["executor"].input_tokens == sum(r.input_tokens for r in ledger) > 0
    assert row.usage_mismatch is None


def _with_workdir(source: Path, target: Path) -> str:
    """The cassette ``source`` with ``workdir: /testbed`` in every exec call, saved as ``target``."""
    cassette = yaml.safe_load(source.read_text())
    for step in cassette["steps"]:
        for call in step.get("tool_calls") or []:
            if call["name"] == "exec":
                call["arguments"]["workdir"] = "/testbed"
    target.write_text(yaml.safe_dump(cassette))
    return target.stem
