"""The real EDICT court (claw ``edict``) without Docker: its checkout as data, and upstream's
dispatch rules run against the real kanban command line (the fixture checkout's scripts/), with
OpenClaw's role turns played by a double that runs each agent's kanban commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from clawmark.catalog.errors import CatalogError
from clawmark.claws import ClawContext, ClawError, TurnResult, Usage, get_claw
from clawmark.claws.edict_court import Court, CourtRules
from tests.support.paths import FIXTURES

CHECKOUT = FIXTURES / "edict-checkout"
COURT = ["taizi", "zhongshu", "menxia", "shangshu", "hubu", "libu", "bingbu", "xingbu", "gongbu", "libu_hr", "zaochao"]
FAST = {"idle_report_s": 0.3, "poll_s": 0.05, "report_reserve_s": 0.0, "min_turn_s": 0.01}


class HostBoard:
    """The container's file reads, from a folder on the host (the board the kanban writes)."""

    def read_file(self, path: str) -> bytes:
        return Path(path).read_bytes()


class RoleDouble:
    """OpenClaw's role turns: each agent's next list of kanban commands, run for real."""

    def __init__(self, home: Path, moves: dict[str, list[list[list[str]]]], fail: str | None = None):
        self.home, self.moves, self.fail = home, json.loads(json.dumps(moves)), fail
        self.turns: list[tuple[str, str]] = []

    def __call__(self, ctx, agent, message, label, seconds_left) -> TurnResult:
        self.turns.append((agent, message))
        if agent == self.fail:
            return TurnResult(success=False, exit_status="error", finish_reason="error", error="provider 500",
                              error_kind="model")
        for command in self.moves[agent].pop(0) if self.moves.get(agent) else []:
            subprocess.run([sys.executable, str(CHECKOUT / "scripts" / "kanban_update.py"), *command], check=True,
                           env={"EDICT_HOME": str(self.home)}, capture_output=True)
        return TurnResult(success=True, exit_status="stop", usage=Usage(input_tokens=10, output_tokens=1, calls=1,
                                                                        cost_usd=0.25), log_paths=[f"{label}.json"])


def _court(tmp_path, moves, fail=None, stopped=False, limit_s=600.0, **rules):
    claw = get_claw("edict", {"checkout": str(CHECKOUT)})
    home = tmp_path / "edict-home"
    (home / "data").mkdir(parents=True)
    (home / "data" / "tasks_source.json").write_text("[]")
    claw.edict_home = lambda ctx: str(home)
    double = RoleDouble(home, moves, fail)
    claw.role_turn = double
    if stopped:
        claw.stopped.set()
    ctx = ClawContext(attempt_id="a1", model="m", gateway_url="http://x", host_dir=tmp_path / "logs",
                      sandbox=HostBoard())
    court = Court(claw, ctx, 0, limit_s, CourtRules(**{**FAST, **rules}))
    return court, double


def _trace(tmp_path):
    return json.loads((tmp_path / "logs" / "edict-dispatch-turn0.json").read_text())


CHAIN = {"taizi": [[["create", "JJC-1", "invoices", "Zhongshu"]]],
         "zhongshu": [[["state", "JJC-1", "Menxia", "plan"]]],
         "menxia": [[["state", "JJC-1", "Assigned", "approved"]]],
         "shangshu": [[["flow", "JJC-1", "尚书省", "户部", "to revenue"]]]}


@pytest.mark.parametrize("final", ["Done", "Cancelled"])
def test_the_chain_reaches_the_ministry_named_by_its_org_and_ends_with_the_report(tmp_path, final):
    moves = {**CHAIN, "hubu": [[["state", "JJC-1", final, "summed"]]]}
    court, double = _court(tmp_path, moves)
    result = court.run("sum the invoices")
    assert [agent for agent, _ in double.turns] == ["taizi", "zhongshu", "menxia", "shangshu", "hubu", "taizi"]
    assert double.turns[0][1] == "sum the invoices"
    assert "JJC-1 has entered state Assigned, department 户部" in double.turns[4][1]
    assert f"(court trigger: state={final})" in double.turns[-1][1]
    assert (result.success, result.exit_status, result.usage.calls, result.usage.cost_usd) == (True, final, 6, 1.5)
    assert [s["board_after"]["JJC-1"] for s in _trace(tmp_path)["steps"]][2:5] == ["Assigned", "Assigned", final]


def test_a_board_left_unchanged_gets_the_report_after_the_idle_period(tmp_path):
    court, double = _court(tmp_path, {"taizi": CHAIN["taizi"]})  # zhongshu does nothing
    result = court.run("sum the invoices")
    assert [agent for agent, _ in double.turns] == ["taizi", "zhongshu", "taizi"]
    assert "(court trigger: idle-after-dispatch state=Zhongshu)" in double.turns[-1][1]
    assert (result.success, result.exit_status, result.finish_reason) == (True, "idle", "stop")


def test_blocked_is_not_an_end_it_dispatches_nobody_and_the_idle_report_follows(tmp_path):
    moves = {**CHAIN, "menxia": [[["state", "JJC-1", "Blocked", "needs the user"]]]}
    court, double = _court(tmp_path, moves)
    result = court.run("sum the invoices")
    assert [agent for agent, _ in double.turns] == ["taizi", "zhongshu", "menxia", "taizi"]
    assert "idle-after-dispatch state=Blocked" in double.turns[-1][1] and result.exit_status == "idle"


def test_a_front_desk_that_answers_alone_still_reports_after_the_idle_period(tmp_path):
    court, double = _court(tmp_path, {})
    result = court.run("hello")
    assert [agent for agent, _ in double.turns] == ["taizi", "taizi"]
    assert "idle-after-dispatch state=none" in double.turns[-1][1] and result.success


def test_time_running_out_ends_with_the_report_typed_as_a_timeout(tmp_path):
    # Doing has no owner; the idle period is longer than the time left before the report's reserve.
    court, double = _court(tmp_path, {"taizi": [[["create", "JJC-1", "t", "Doing"]]]}, limit_s=1.0,
                           idle_report_s=60.0, report_reserve_s=0.5)
    result = court.run("sum the invoices")
    assert [agent for agent, _ in double.turns] == ["taizi", "taizi"]
    assert "(court trigger: wall-clock timeout)" in double.turns[-1][1]
    assert (result.success, result.timeout, result.exit_status) == (False, True, "wall_clock")


def test_the_host_deadline_stops_the_court_without_a_report(tmp_path):
    court, double = _court(tmp_path, CHAIN, stopped=True)
    result = court.run("sum the invoices")
    assert (len(double.turns), result.finish_reason, result.exit_status) == (1, "timeout", "wall_clock")


def test_a_failed_role_turn_ends_the_court_with_its_typed_failure(tmp_path):
    court, double = _court(tmp_path, CHAIN, fail="menxia")
    result = court.run("sum the invoices")
    assert [agent for agent, _ in double.turns] == ["taizi", "zhongshu", "menxia"]
    assert (result.success, result.error_kind, result.error) == (False, "model", "edict error: provider 500")


def test_a_ping_pong_court_reports_at_the_dispatch_limit(tmp_path):
    back_and_forth = {"zhongshu": [[["state", "JJC-1", "Menxia"]]] * 3, "menxia": [[["state", "JJC-1", "Zhongshu"]]] * 3}
    court, double = _court(tmp_path, {"taizi": CHAIN["taizi"], **back_and_forth}, max_dispatches=4)
    result = court.run("sum the invoices")
    assert [agent for agent, _ in double.turns] == ["taizi", "zhongshu", "menxia", "zhongshu", "menxia", "taizi"]
    assert (result.success, result.exit_status) == (True, "dispatch_limit")


def test_the_checkout_is_read_as_data_and_names_the_version():
    claw = get_claw("edict", {"checkout": str(CHECKOUT)})
    assert [a.id for a in claw.setup.agents] == COURT and claw.setup.allowed("shangshu")[2:] == COURT[4:10]
    assert claw.version == "fixture+openclaw.2026.9.6" == claw.settings()["version"]
    assert claw.settings()["edict_commit"] == "fixture" and claw.settings()["deny_tools"] == []
    assert "The six ministries" in claw.setup.agent_rules["hubu"] and "Plan, review" in claw.setup.agent_rules["taizi"]
    assert "Plan, review" not in claw.setup.agent_rules["zaochao"]  # in neither group: the shared rules only


def test_a_missing_or_bad_checkout_is_a_clear_error_naming_the_setting(tmp_path, monkeypatch):
    monkeypatch.delenv("CLAWMARK_EDICT_CHECKOUT", raising=False)
    unset = get_claw("edict")  # `claws list` still lists it
    with pytest.raises(ClawError, match=r"setting `checkout` is not set \(nor \$CLAWMARK_EDICT_CHECKOUT\)"):
        unset.create_agent(ClawContext(attempt_id="a1", model="m", gateway_url="http://x", host_dir=tmp_path,
                                        sandbox=Recorder()))
    with pytest.raises(CatalogError, match=r"nowhere: edict.checkout: expected a checkout of the EDICT project"):
        get_claw("edict", {"checkout": str(tmp_path / "nowhere")})
    (tmp_path / "agents.json").write_text('[{"id": "taizi"}]')
    with pytest.raises(CatalogError, match=r"agents.json: id: expected EDICT's court, which needs the agents"):
        get_claw("edict", {"checkout": str(tmp_path)})


class Recorder:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def copy_in(self, source, dest):
        self.copied = sorted(str(p.relative_to(source)) for p in Path(source).rglob("*") if p.is_file())

    def exec(self, command, **kwargs):
        return type("R", (), {"exit_code": 0, "stderr": "", "stdout": ""})()

    def write_file(self, path, data):
        self.files[path] = data


def test_every_agent_is_installed_with_its_persona_rules_and_the_session_tools(tmp_path):
    claw, sandbox = get_claw("edict", {"checkout": str(CHECKOUT)}), Recorder()
    ctx = ClawContext(attempt_id="a1", model="m", gateway_url="http://x", host_dir=tmp_path, sandbox=sandbox,
                      claw_home="/tmp/claw-home")
    claw.create_agent(ctx)
    config = json.loads(sandbox.files["/tmp/claw-home/state/openclaw.json"])
    assert list(config["agents"]["entries"]) == COURT and "deny" not in config["tools"]
    assert config["tools"]["agentToAgent"] == {"enabled": True, "allow": COURT}
    assert config["agents"]["entries"]["shangshu"]["subagents"]["allowAgents"][2] == "hubu"
    soul = sandbox.files["/tmp/claw-home/workspaces/hubu/SOUL.md"].decode()
    assert "python3 /tmp/claw-home/edict/scripts/kanban_update.py" in soul
    assert "The six ministries" in sandbox.files["/tmp/claw-home/workspaces/hubu/AGENTS.md"].decode()
    assert "scripts/kanban_update.py" in sandbox.copied and "agents/taizi/SOUL.md" in sandbox.copied


class VersionProbe(Recorder):
    """A container whose OpenClaw answers `--version` as the real 2026.9.6 does."""

    def exec(self, command, **kwargs):
        return type("R", (), {"exit_code": 0, "stderr": "", "stdout": "OpenClaw 2026.9.6 (eb377ac)\n"})()


def test_a_court_checks_the_openclaw_release_it_runs_on_not_its_own_version(tmp_path):
    """A court's version names its commit or content too; the container check reads the release."""
    from clawmark.claws.openclaw import OPENCLAW_VERSION

    for claw in (get_claw("edict", {"checkout": str(CHECKOUT)}), get_claw("edict-3role")):
        ctx = ClawContext(attempt_id="a1", model="m", gateway_url="http://x", host_dir=tmp_path,
                          sandbox=VersionProbe())
        assert claw.version != OPENCLAW_VERSION and claw.release == OPENCLAW_VERSION
        claw.post_container_start(ctx)  # raises ClawError when the release is not the one found
    pinned = get_claw("openclaw")
    pinned.version = "2026.3.11"  # a profile pinned another release than the container has
    with pytest.raises(ClawError, match="openclaw 2026.3.11 is not runnable"):
        pinned.post_container_start(ClawContext(attempt_id="a1", model="m", gateway_url="http://x",
                                                host_dir=tmp_path, sandbox=VersionProbe()))
