"""mini-swe-agent through the claw protocol directly, as the closed-loop track will drive it:
a first turn, then a follow-up turn that continues the same saved conversation."""

from __future__ import annotations

import json

import pytest

from clawmark.claws import ClawContext, get_claw
from clawmark.gateway.ledger import read_ledger
from clawmark.swe.environment import InstanceEnv, InstanceEnvConfig
from tests.integration.attempt_support import INI, INSTANCES, gateway  # noqa: F401

pytestmark = pytest.mark.docker


def test_follow_up_turn_continues_the_saved_trajectory(gateway, tmp_path):  # noqa: F811
    from clawmark.attempts.gateway_link import container_url

    claw, attempt_id, model = get_claw("mini-swe-agent"), "mini-turns", f"scripted/mini-{INI}"
    gateway.register_attempt(attempt_id, model=model, ledger_path=tmp_path / "ledger.jsonl")
    ctx = ClawContext(attempt_id=attempt_id, model=model, host_dir=tmp_path / "claw",
                      gateway_url=container_url(gateway, attempt_id, "executor"))
    with InstanceEnv(INSTANCES[INI], InstanceEnvConfig(**claw.docker_args(ctx))) as sandbox:
        ctx.sandbox = sandbox
        claw.post_container_start(ctx)
        first = claw.send_task(ctx, INSTANCES[INI].problem_statement, 0)
        second = claw.send_task(ctx, "Thanks. Please also keep tabs working as separators.", 1)
    assert (first.exit_status, second.exit_status) == ("Submitted", "Submitted"), second.error
    messages = json.loads((ctx.host_dir / "traj.json").read_text())["messages"]
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert len(users) == 2 and users[1].startswith("Thanks. Please also keep tabs")
    assert "follow-up-ran" in json.dumps(messages)
    assert len(read_ledger(tmp_path / "ledger.jsonl")) == 6  # 4 calls, then 2 in the follow-up
