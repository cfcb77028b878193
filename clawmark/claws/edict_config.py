"""An EDICT configuration directory, as the public EDICT project lays it out (MIT):

    agents.json              [{"id": "taizi", "subagents": {"allowAgents": ["zhongshu"]}}, ...]
    agents/<id>/SOUL.md      each role agent's persona; ``__REPO_DIR__`` = the directory itself
    agents/GLOBAL.md         optional, appended to every SOUL.md
    scripts/kanban_update.py the kanban command line the agents call
    data/tasks_source.json   the kanban: a JSON list of tasks with ``id``, ``state``, ``org``
    dispatch.yaml            optional, clawmark's: who acts on which state (defaults below)

Without ``dispatch.yaml`` the dispatch follows the EDICT project's own state → agent table.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, Field, ValidationError

from clawmark.catalog.errors import CatalogError, from_validation

# The public EDICT project's routing (edict/backend/app/models/task.py), as data.
EDICT_STATE_AGENTS = {"Taizi": "taizi", "Zhongshu": "zhongshu", "Menxia": "menxia", "Assigned": "shangshu",
                      "Review": "shangshu", "PendingConfirm": "shangshu", "Pending": "zhongshu"}
EDICT_ORG_AGENTS = {"户部": "hubu", "礼部": "libu", "兵部": "bingbu", "刑部": "xingbu", "工部": "gongbu",
                    "吏部": "libu_hr", "中书省": "zhongshu", "门下省": "menxia", "尚书省": "shangshu"}


class DispatchRules(BaseModel, extra="forbid"):
    entry_agent: str = Field("taizi", description="Receives the request and writes the final report.")
    state_agents: dict[str, str] = Field(default_factory=lambda: dict(EDICT_STATE_AGENTS))
    org_agents: dict[str, str] = Field(default_factory=lambda: dict(EDICT_ORG_AGENTS),
                                       description="Owner by the task's `org` when its state maps to nobody.")
    terminal_states: list[str] = Field(default_factory=lambda: ["Done", "Cancelled", "Blocked"],
                                       description="Blocked ends it too: no human unblocks in a benchmark.")
    agent_cwd: Literal["workspace", "task"] = Field(
        "workspace", description="Where a role's tools start: its own workspace (EDICT's SOUL.md files call "
                                 "scripts/ by relative path) or the task's folder.")

    def owner(self, task: dict) -> str | None:
        """The agent whose turn it is on ``task``, or None when nobody owns its state."""
        return self.state_agents.get(str(task.get("state"))) or self.org_agents.get(str(task.get("org")))


class RosterAgent(BaseModel):
    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    name: str | None = None
    subagents: dict = Field(default_factory=dict)


class EdictSetup(BaseModel):
    """The loaded directory: its role agents (with persona text) and its dispatch rules."""

    folder: Path
    agents: list[RosterAgent]
    souls: dict[str, str]
    rules: DispatchRules

    def allowed(self, agent_id: str) -> list[str]:
        agent = next(a for a in self.agents if a.id == agent_id)
        return [str(x) for x in agent.subagents.get("allowAgents") or []]


def load_edict(folder: Path) -> EdictSetup:
    """Read and check an EDICT directory; raises CatalogError naming the file and field."""
    folder = Path(folder)
    roster_file = folder / "agents.json"
    agents = _roster(roster_file)
    rules = _rules(folder / "dispatch.yaml")
    if rules.entry_agent not in {a.id for a in agents}:
        raise CatalogError(roster_file, "id", f"an agent {rules.entry_agent!r} (the dispatch's entry_agent)")
    glob = folder / "agents" / "GLOBAL.md"
    extra = "\n\n" + glob.read_text() if glob.is_file() else ""
    souls = {}
    for agent in agents:
        soul = folder / "agents" / agent.id / "SOUL.md"
        if not soul.is_file():
            raise CatalogError(soul, "SOUL.md", f"a persona file for agent {agent.id!r} listed in agents.json")
        souls[agent.id] = soul.read_text() + extra
    return EdictSetup(folder=folder, agents=agents, souls=souls, rules=rules)


def _roster(path: Path) -> list[RosterAgent]:
    if not path.is_file():
        raise CatalogError(path, "agents.json", "a JSON list of role agents (EDICT layout)")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise CatalogError(path, "<root>", f"valid JSON ({exc.msg})", exc.lineno) from exc
    if not isinstance(data, list) or not data:
        raise CatalogError(path, "<root>", "a non-empty list of agents")
    try:
        return [RosterAgent.model_validate(item) for item in data]
    except ValidationError as exc:
        raise from_validation(path, exc) from exc


def _rules(path: Path) -> DispatchRules:
    if not path.is_file():
        return DispatchRules()
    try:
        return DispatchRules.model_validate(yaml.safe_load(path.read_text()) or {})
    except ValidationError as exc:
        raise from_validation(path, exc) from exc


# The public EDICT project's groups (agents/groups/<name>.md): shared rules of the three
# departments with the front desk, and of the six ministries (the same split UniClawBench uses).
EDICT_GROUPS = {"sansheng": ("taizi", "zhongshu", "menxia", "shangshu"),
                "liubu": ("hubu", "libu", "bingbu", "xingbu", "gongbu", "libu_hr")}
# What of a checkout reaches the container: the personas, the kanban command line, its data and
# the backend's task model (the command line reads its state transitions from that file).
CHECKOUT_PARTS = ("agents", "scripts", "data", "edict/backend/app/models")


class EdictCheckout(BaseModel):
    """A checkout of the public EDICT project: its roster (agents.json) and its persona files."""

    folder: Path
    commit: str
    agents: list[RosterAgent]
    souls: dict[str, str]
    agent_rules: dict[str, str] = Field(description="AGENTS.md per agent: GLOBAL.md then its group's rules.")

    def allowed(self, agent_id: str) -> list[str]:
        agent = next(a for a in self.agents if a.id == agent_id)
        return [str(x) for x in agent.subagents.get("allowAgents") or []]


def load_checkout(folder: Path, field: str) -> EdictCheckout:
    """Read an EDICT checkout as data; ``field`` (the setting that named it) is in every error."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CatalogError(folder, field, "a checkout of the EDICT project (a folder with agents.json)")
    agents = _roster(folder / "agents.json")
    missing = [a for a in EDICT_GROUPS["sansheng"] if a not in {x.id for x in agents}]
    if missing:
        raise CatalogError(folder / "agents.json", "id", f"EDICT's court, which needs the agents {missing}")
    glob = folder / "agents" / "GLOBAL.md"
    shared = glob.read_text() if glob.is_file() else ""
    souls, rules = {}, {}
    for agent in agents:
        soul = folder / "agents" / agent.id / "SOUL.md"
        if not soul.is_file():
            raise CatalogError(soul, "SOUL.md", f"a persona file for agent {agent.id!r} listed in agents.json")
        souls[agent.id] = soul.read_text()
        group = next((g for g, members in EDICT_GROUPS.items() if agent.id in members), None)
        group_file = folder / "agents" / "groups" / f"{group}.md"
        parts = [shared, group_file.read_text() if group and group_file.is_file() else ""]
        rules[agent.id] = "\n\n".join(p.strip() for p in parts if p.strip()) + "\n"
    return EdictCheckout(folder=folder, commit=_commit(folder, field), agents=agents, souls=souls, agent_rules=rules)


def _commit(folder: Path, field: str) -> str:
    """The checkout's commit: git's HEAD, or the EDICT_COMMIT file of an exported tree."""
    if (folder / ".git").exists():
        head = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True)
        if head.returncode == 0:
            return head.stdout.strip()[:12]
    stamp = folder / "EDICT_COMMIT"
    if stamp.is_file() and stamp.read_text().strip():
        return stamp.read_text().strip()[:40]
    raise CatalogError(folder, field, "a git checkout of the EDICT project, or an exported tree with an "
                                      "EDICT_COMMIT file naming its commit")
