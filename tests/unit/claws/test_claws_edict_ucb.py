"""The real EDICT court as UniClawBench ran it (profile ``ucb-paper``): on OpenClaw 2026.3.11, with the
settings ucb-paper gives OpenClaw, the roster in the form 2026.3 reads, and UniClawBench's TOOLS.md
and AGENTS.md preface in every agent's workspace. Without Docker: what the court writes is read
back from a recording sandbox (the container test validates it with OpenClaw 2026.3.11 itself)."""

from __future__ import annotations

import json

from clawmark.attempts.patch import PatchAttemptConfig, identity_fields
from clawmark.claws import Budgets, ClawContext, get_claw
from clawmark.claws.profiles import claw_for, profiled_claw
from clawmark.results import AttemptRow
from tests.support.attempt_fixtures import INI, INSTANCES
from tests.unit.claws.test_claws_edict_court import CHECKOUT, COURT, Recorder
from tests.unit.claws.test_claws_profiles import UCB

HOME = "/tmp/claw-home"


def _installed(claw, tmp_path, track="closed_loop"):
    sandbox = Recorder()
    ctx = ClawContext(attempt_id="a1", model="m", gateway_url="http://x", host_dir=tmp_path, sandbox=sandbox,
                      claw_home=HOME, track=track, budgets=Budgets(seconds=1200))
    claw.create_agent(ctx)
    return json.loads(sandbox.files[f"{HOME}/state/openclaw.json"]), sandbox.files


def test_ucb_paper_runs_the_court_on_openclaw_2026_3_11_named_in_its_version(tmp_path):
    court, budgets = profiled_claw("edict", {"checkout": str(CHECKOUT)}, Budgets(seconds=99), UCB)
    plain = get_claw("edict", {"checkout": str(CHECKOUT)})
    assert (court.version, court.release, court.needs_image_layer) == ("fixture+openclaw.2026.3.11", "2026.3.11",
                                                                       "claw-openclaw-2026.3.11")
    assert (plain.version, plain.release, plain.needs_image_layer) == ("fixture+openclaw.2026.9.6", "2026.9.6",
                                                                       "claw-openclaw")
    assert budgets.seconds == 1200
    row = AttemptRow(status="infra_error", **identity_fields(INSTANCES[INI], court, "scripted/x", 0, "s",
                                                             claw_for("edict", PatchAttemptConfig(
                                                                 profile=UCB, claw_settings={"checkout": str(
                                                                     CHECKOUT)}))[1]))
    fixed = json.loads(row.claw_profile_fixed)
    assert (row.claw_version, fixed["version"], fixed["image"]) == ("fixture+openclaw.2026.3.11", "2026.3.11",
                                                                   "claw-openclaw-2026.3.11")
    assert fixed["settings"] == {"native_browser": False, "context_tokens": 200000, "native_skills": "auto",
                                 "runtime_preface": True}
    assert "runtime_preface" not in plain.settings()  # clawmark's cells keep their keys


def test_the_court_writes_the_roster_and_settings_openclaw_2026_3_reads(tmp_path):
    court, _ = profiled_claw("edict", {"checkout": str(CHECKOUT)}, Budgets(), UCB)
    config, _ = _installed(court, tmp_path)
    agents = config["agents"]
    assert "entries" not in agents and "ownership" not in agents  # 2026.9's form, unknown to 2026.3
    assert [a["id"] for a in agents["list"]] == COURT
    assert [a["id"] for a in agents["list"] if a.get("default")] == ["taizi"]
    assert not any("cwd" in a for a in agents["list"]) and "cwd" not in agents["defaults"]
    shangshu = next(a for a in agents["list"] if a["id"] == "shangshu")
    assert shangshu["workspace"] == f"{HOME}/workspaces/shangshu" and "hubu" in shangshu["subagents"]["allowAgents"]
    assert config["tools"]["exec"] == {"security": "full", "ask": "off", "host": "gateway"}  # no tools.exec.mode
    assert config["tools"]["agentToAgent"] == {"enabled": True, "allow": COURT}
    assert config["tools"]["sessions"] == {"visibility": "all"}
    assert config["browser"] == {"enabled": False} and config["commands"] == {"nativeSkills": "auto"}
    assert agents["defaults"]["contextTokens"] == 200000 and agents["defaults"]["timeoutSeconds"] == 1200

    plain_config, plain_files = _installed(get_claw("edict", {"checkout": str(CHECKOUT)}), tmp_path)
    assert list(plain_config["agents"]["entries"]) == COURT and plain_config["agents"]["ownership"] == "explicit"
    assert f"{HOME}/workspaces/taizi/TOOLS.md" not in plain_files  # the preface is ucb-paper's alone


def test_every_agent_gets_uniclawbenchs_tools_md_and_agents_md_preface(tmp_path):
    court, _ = profiled_claw("edict", {"checkout": str(CHECKOUT)}, Budgets(), UCB)
    _, files = _installed(court, tmp_path)
    souls = {agent: files[f"{HOME}/workspaces/{agent}/SOUL.md"].decode() for agent in COURT}
    for agent in COURT:
        tools = files[f"{HOME}/workspaces/{agent}/TOOLS.md"].decode()
        rules = files[f"{HOME}/workspaces/{agent}/AGENTS.md"].decode()
        assert "`sessions_spawn`" in tools and 'mode: "run"' in tools and "agent:<agent_id>:main" in tools
        assert "agent-browser" in tools and "/root/skills/agent-browser-control/SKILL.md" in tools
        assert rules.startswith(f"# AGENTS.md: the EDICT court in this benchmark ({agent})")
        assert f"`{HOME}/edict`" in rules and "/tmp_workspace/clawbench/sources" in rules
        assert "/tmp_workspace/results" in rules
        assert rules.rstrip().endswith(souls[agent].rstrip())  # the role's own rules close it, as upstream
    assert "- `shangshu` -> `hubu`" in files[f"{HOME}/workspaces/shangshu/TOOLS.md"].decode()
    assert "The six ministries" in files[f"{HOME}/workspaces/hubu/AGENTS.md"].decode()  # the group's rules kept
    _, patch_files = _installed(court, tmp_path, track="patch")
    assert "`/testbed`" in patch_files[f"{HOME}/workspaces/taizi/AGENTS.md"].decode()  # the repository on that track
