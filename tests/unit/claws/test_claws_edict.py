"""The three-role test double ``edict-3role`` without Docker: its configuration directory (our own
and the public project's layout) and its dispatch loop, with OpenClaw's role turns played by a
double that edits the kanban. The real court's are tests/unit/claws/test_claws_edict_court.py."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from clawmark.catalog.errors import CatalogError
from clawmark.claws import ClawContext, TurnResult, Usage
from clawmark.claws.edict_config import EDICT_STATE_AGENTS, load_edict
from clawmark.claws.edict_dispatch import Dispatch
from clawmark.settings import TASKS_CATALOG


def _public_layout(root: Path) -> Path:
    """The public EDICT project's shape: Windows paths in agents.json, no dispatch.yaml."""
    agents = [{"id": a, "workspace": f"C:\\Users\\x\\.openclaw\\workspace-{a}", "subagents": {"allowAgents": []}}
              for a in ("taizi", "zhongshu", "menxia", "shangshu")]
    (root / "agents.json").write_text(json.dumps(agents))
    for agent in agents:
        (root / "agents" / agent["id"]).mkdir(parents=True)
        (root / "agents" / agent["id"] / "SOUL.md").write_text(f"# {agent['id']}\n__REPO_DIR__/scripts\n")
    (root / "agents" / "GLOBAL.md").write_text("shared rules")
    return root


def test_our_configuration_loads_with_its_three_roles_and_dispatch_rules():
    setup = load_edict(TASKS_CATALOG / "edict")
    assert [a.id for a in setup.agents] == ["taizi", "zhongshu", "shangshu"]
    assert setup.rules.owner({"state": "Assigned"}) == "shangshu" and setup.rules.agent_cwd == "task"
    assert "__REPO_DIR__/scripts/kanban_update.py" in setup.souls["zhongshu"]


def test_the_public_layout_gets_edicts_own_routing_and_global_rules(tmp_path):
    setup = load_edict(_public_layout(tmp_path))
    assert setup.rules.state_agents == EDICT_STATE_AGENTS and setup.rules.agent_cwd == "workspace"
    assert setup.rules.owner({"state": "Doing", "org": "工部"}) == "gongbu"
    assert setup.souls["menxia"].endswith("shared rules")


def test_bad_directories_are_named_in_one_line(tmp_path):
    with pytest.raises(CatalogError, match=r"agents.json: agents.json: expected a JSON list"):
        load_edict(tmp_path)
    (tmp_path / "agents.json").write_text('[{"id": "taizi"}]')
    with pytest.raises(CatalogError, match=r"taizi/SOUL.md: SOUL.md: expected a persona file"):
        load_edict(tmp_path)
    (tmp_path / "agents.json").write_text('[{"id": "no spaces"}]')
    with pytest.raises(CatalogError, match=r"agents.json: 0?\.?id: expected"):
        load_edict(tmp_path)


class CourtDouble:
    """Plays OpenClaw's role turns: each agent's ``moves`` (state → next state) edit the board."""

    def __init__(self, moves: dict[str, dict[str | None, str]], max_dispatches: int = 12):
        self.setup = load_edict(TASKS_CATALOG / "edict")
        self.config = type("C", (), {"max_dispatches": max_dispatches})()
        self.stopped = threading.Event()
        self.board: list[dict] = []
        self.moves = moves
        self.turns: list[tuple[str, str]] = []

    def edict_home(self, ctx):
        return "/tmp/claw-home/edict"

    def read_board(self, ctx):
        return [dict(t) for t in self.board]

    def role_turn(self, ctx, agent, message, label, seconds_left):
        self.turns.append((agent, message))
        state = self.board[-1]["state"] if self.board else None
        target = self.moves.get(agent, {}).get(state)
        if target and not self.board:
            self.board.append({"id": "JJC-1", "title": "t", "state": target})
        elif target:
            self.board[-1]["state"] = target
        return TurnResult(success=True, exit_status="stop", usage=Usage(input_tokens=10, output_tokens=1, calls=1,
                                                                        cost_usd=0.5), log_paths=[f"{label}.json"])


def _ctx(tmp_path):
    return ClawContext(attempt_id="a1", model="m", gateway_url="http://x", host_dir=tmp_path)


COURT = {"taizi": {None: "Zhongshu"}, "zhongshu": {"Zhongshu": "Assigned"}, "shangshu": {"Assigned": "Done"}}


def test_the_court_runs_entry_owners_then_report_and_sums_usage(tmp_path):
    court = CourtDouble(COURT)
    result = Dispatch(court, _ctx(tmp_path), 0, 600).run("fix it")
    assert [agent for agent, _ in court.turns] == ["taizi", "zhongshu", "shangshu", "taizi"]
    assert court.turns[0][1] == "fix it" and "reached its final state Done" in court.turns[-1][1]
    assert (result.success, result.exit_status, result.usage.calls, result.usage.cost_usd) == (True, "Done", 4, 2.0)
    trace = json.loads((tmp_path / "edict-dispatch-turn0.json").read_text())
    assert [s["board_after"] for s in trace["steps"]][1] == {"JJC-1": "Assigned"}


def test_a_role_that_leaves_the_state_unchanged_stalls_the_dispatch(tmp_path):
    court = CourtDouble({"taizi": {None: "Zhongshu"}})
    result = Dispatch(court, _ctx(tmp_path), 0, 600).run("fix it")
    assert (result.success, result.exit_status, result.finish_reason) == (False, "stalled", "error")
    assert "zhongshu left task JJC-1 in state 'Zhongshu'" in result.error


def test_an_entry_agent_that_answers_itself_dispatches_nothing(tmp_path):
    court = CourtDouble({})
    result = Dispatch(court, _ctx(tmp_path), 0, 600).run("hello")
    assert (result.success, result.exit_status, len(court.turns)) == (True, "answered", 1)


def test_the_host_deadline_ends_the_dispatch_at_its_next_step(tmp_path):
    court = CourtDouble(COURT)
    court.stopped.set()
    result = Dispatch(court, _ctx(tmp_path), 0, 600).run("fix it")
    assert (result.finish_reason, result.exit_status, len(court.turns)) == ("timeout", "wall_clock", 1)


def test_a_ping_pong_court_ends_at_the_dispatch_limit(tmp_path):
    court = CourtDouble({"taizi": {None: "Zhongshu"}, "zhongshu": {"Zhongshu": "Assigned"},
                         "shangshu": {"Assigned": "Zhongshu"}}, max_dispatches=4)
    result = Dispatch(court, _ctx(tmp_path), 0, 600).run("fix it")
    assert (result.finish_reason, result.exit_status, len(court.turns)) == ("limit", "dispatch_limit", 5)


def test_the_version_names_openclaw_and_the_courts_content(tmp_path):
    from clawmark.claws import get_claw

    (tmp_path / "a").mkdir()
    ours = get_claw("edict-3role")
    public = get_claw("edict-3role", {"config_dir": str(_public_layout(tmp_path / "a"))})
    assert ours.version.startswith("2026.9.6+edict-3role.") and ours.version != public.version
    (tmp_path / "a" / "agents" / "taizi" / "SOUL.md").write_text("# taizi, edited\n")
    edited = get_claw("edict-3role", {"config_dir": str(tmp_path / "a")})
    assert edited.version != public.version and edited.settings()["version"] == edited.version
