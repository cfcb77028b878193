"""The conformance kit's closed-loop half: every claw of ``KIT_CLAWS`` through a real two-turn
closed-loop attempt (task container, supervisor, user simulator, rewritten follow-up) on the
fixture task ``fx_101_sum``: one session across turns (turn 2's reply only answers a request
that holds turn 1's assistant message), the follow-up delivered, calls under the right roles,
and no claw file in the results folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from clawmark.catalog import load_task
from clawmark.gateway.ledger import read_ledger
from clawmark.results import Status
from tests.claws.kit import (CASSETTES, CLAW_DIR_NAMES, CLAW_FILE_NAMES, FOLLOW_UP_MARK, KIT_CLAWS, TURN0_MARK,
                             follow_up_request, texts)
from tests.integration.closed_loop_support import FIXTURES, decision, sim_reply

pytestmark = pytest.mark.docker
CL_FOLLOW_UP = f"{FOLLOW_UP_MARK}: please write the summary file now."


@pytest.fixture
def cassettes(tmp_path, monkeypatch):
    folder = tmp_path / "cassettes"
    folder.mkdir()
    monkeypatch.setenv("CLAWMARK_CASSETTES", os.pathsep.join([str(folder), str(CASSETTES)]))

    def write(name: str, steps: list[dict]) -> str:
        (folder / f"{name}.yaml").write_text(yaml.safe_dump({"steps": steps}, allow_unicode=True))
        return f"scripted/{name}"

    return write


@pytest.mark.parametrize("kit_claw", [c for c in KIT_CLAWS if c.closed_loop], ids=str)
def test_two_closed_loop_turns_in_one_session(kit_claw, provider, gateway, store, cassettes):
    from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig, run_closed_loop_attempt

    executor = cassettes(f"kit-cl-{kit_claw.name}", [
        kit_claw.final(f"{TURN0_MARK}: I read the task; here is my first answer."),
        # reply 1 only when turn 1's reply is in the request (by count alone where no trigger sees the text)
        {**({} if kit_claw.context_after_user else {"match": FOLLOW_UP_MARK, "turn": 1}),
         **kit_claw.final("Second turn, same session: done.")},
    ])
    supervisor = cassettes("kit-cl-sup", [
        {"match": "EXECUTOR TURN 1 OF 3", "content": decision("continue", "incomplete", 0.1, True)},
        {"match": "EXECUTOR TURN 2 OF 3", "content": decision("fail", "complete_but_failed", 0.1)},
    ])
    simulator = cassettes("kit-cl-sim", [{"content": sim_reply(CL_FOLLOW_UP)}])
    task = load_task(FIXTURES / "closed_loop" / "fx_101_sum")
    row = run_closed_loop_attempt(task, kit_claw.name, executor, 0, store, "kit-cl", gateway,
                                  config=ClosedLoopAttemptConfig(supervisor_model=supervisor, simulator_model=simulator,
                                                                 claw_settings=kit_claw.config))
    assert (row.status, row.turns, row.followups_used) == (Status.FAIL, 2, 1), row.error_message
    cycles = Path(row.artifacts_dir) / "cycles"
    assert (cycles / "1" / "prompt.txt").read_text() == CL_FOLLOW_UP
    _, follow_up = follow_up_request(provider.requests(executor.split("/", 1)[1]))
    assert any(TURN0_MARK in text for text in texts(follow_up["messages"], "assistant"))
    ledger = read_ledger(Path(row.artifacts_dir) / "ledger.jsonl")
    assert {r.attempt_id for r in ledger} == {row.attempt_id} and all(r.status == "ok" for r in ledger)
    roles = [r.role for r in ledger]
    assert {"executor", "supervisor", "user_simulator"} <= set(roles) and roles.count("supervisor") == 2
    leaked = [p for p in cycles.glob("*/results/**/*")
              if p.name in CLAW_FILE_NAMES or CLAW_DIR_NAMES & set(p.relative_to(cycles).parts[2:-1])]
    assert leaked == []
