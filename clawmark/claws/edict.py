"""``edict``: the real EDICT court (cft0808/edict) on OpenClaw, dispatched by UniClawBench's rules;
``edict-3role``: clawmark's three-role court, a test double of it.

``edict`` reads its 11 agents (agents.json), their SOUL.md and the shared and group rules
(agents/GLOBAL.md, agents/groups/*.md, written as each agent's AGENTS.md) from the EDICT checkout
the user names (setting ``checkout`` or ``$CLAWMARK_EDICT_CHECKOUT``); nothing of EDICT's text is
in our tree. The checkout's personas, kanban command line, data and task model are copied into
the claw home as ``EDICT_HOME`` with a fresh, empty board; each agent gets an OpenClaw agent
whose workspace links to ``data/`` and ``scripts/``, as EDICT's installer sets them up. Session
and agent-to-agent tools are on. The dispatch is :mod:`clawmark.claws.edict_court`. Under the
``ucb-paper`` profile the court runs on OpenClaw 2026.3.11 (the profile's version is that release),
with its roster in that release's form and UniClawBench's TOOLS.md / AGENTS.md preface
(:mod:`clawmark.claws.edict_workspace`).

``edict-3role`` (configuration in ``tasks_catalog/edict``) keeps the older, simpler dispatch of
:mod:`clawmark.claws.edict_dispatch`: cheaper to run, it stands in for the court where a test
needs a claw with role agents but not EDICT itself.
"""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from clawmark.claws.base import ClawContext, ClawError, TurnResult
from clawmark.claws.edict_config import CHECKOUT_PARTS, EdictCheckout, EdictSetup, load_checkout, load_edict
from clawmark.claws.edict_court import ENTRY, Court, CourtRules
from clawmark.claws.edict_dispatch import Dispatch
from clawmark.claws.edict_workspace import agents_md_preface, roster_block, tools_md
from clawmark.claws.openclaw import OPENCLAW_VERSION, OpenClawClaw, OpenClawConfig, keeps_jsonl_sessions
from clawmark.runtime.recipes import tree_digest
from clawmark.settings import TASKS_CATALOG, settings

REPO_MARK = "__REPO_DIR__"
CHECKOUT_ENV = "CLAWMARK_EDICT_CHECKOUT"

# UniClawBench's runner puts a routing note between the runtime facts and the task for EDICT
# (without it the entry agent answered as a single agent and never used the court); ours says the same.
ROUTING_NOTE = """\
EDICT routing note:
- You work inside a court of agents: the request below is the sovereign's own words, not a plain single-agent task.
- A formal or complex request goes the court's way: the crown prince sorts it, the secretariat (zhongshu) plans, \
the chancellery (menxia) reviews, the department of state affairs (shangshu) assigns it to the ministries.
- Do not skip the hand-offs; only small talk or a simple question may be answered by the crown prince directly.
- Update the board and hand the task on with real tool calls, never with example commands or a note that you would.
The sovereign's words follow."""


class CourtOnOpenClaw(OpenClawClaw):
    """What both courts share: role agents as OpenClaw agents, one session each, one board."""

    routing_note = ROUTING_NOTE
    usage_report = "openclaw --json of every role turn, summed"
    setup: Any

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__(config)
        self.sessions: list[tuple[str, str]] = []
        self.stopped = threading.Event()  # set at the host deadline: the dispatch ends at its next step
        self.openclaw_release = OPENCLAW_VERSION

    @property
    def release(self) -> str:
        return self.openclaw_release

    def pin(self, profile: str, *, version: str | None, image: str | None, prompt: str | None,
            fixed: dict[str, Any]) -> None:
        """A profile's version of a court is the OpenClaw release it runs on (in ``image``); the
        court's own version still names its commit or content, now beside that release."""
        super().pin(profile, version=None, image=image, prompt=prompt, fixed=fixed)
        if version is not None:
            self.openclaw_release = version
            self.version = self.court_version()  # type: ignore[misc]

    def court_version(self) -> str:
        raise NotImplementedError

    def stop(self, ctx: ClawContext) -> None:
        self.stopped.set()

    def edict_home(self, ctx: ClawContext) -> str:
        return f"{ctx.claw_home}/edict"

    def install_court(self, ctx: ClawContext, folder: Path, board: str, files: dict[str, dict[str, str]],
                      entries: dict[str, Any], entry: str, tools: dict[str, Any] | None = None) -> None:
        """``folder`` becomes EDICT_HOME (``board``: how its kanban starts); ``files`` are each
        agent's workspace files (``__REPO_DIR__`` = EDICT_HOME); ``entries`` OpenClaw's agents,
        ``entry`` the one that gets the request."""
        home, staging = self.edict_home(ctx), f"{ctx.claw_home}/edict-copy"
        ctx.sandbox.copy_in(folder, staging)  # lands as staging/<folder name>
        placed = ctx.sandbox.exec(f"rm -rf {home} && mv {staging}/{shlex.quote(folder.name)} {home} && "
                                  f"rmdir {staging} && mkdir -p {home}/data && {board}", timeout_s=60)
        if placed.exit_code != 0:
            raise ClawError(f"could not install the EDICT directory at {home}: {placed.stderr[-500:]}")
        for agent, agent_files in files.items():
            workspace = self.workspace_of(ctx, agent)
            ctx.sandbox.exec(f"mkdir -p {workspace} && ln -sfn {home}/data {workspace}/data && "
                             f"ln -sfn {home}/scripts {workspace}/scripts", timeout_s=60)
            for name, text in agent_files.items():
                ctx.sandbox.write_file(f"{workspace}/{name}", text.replace(REPO_MARK, home).encode())
        config = self.openclaw_config(ctx)
        config["agents"].update(roster_block(entries, legacy=keeps_jsonl_sessions(self.release), entry_agent=entry))
        config["tools"].update(tools or {})
        ctx.sandbox.write_file(self.config_path(ctx), json.dumps(config, indent=1).encode())
        self.hand_home_over(ctx)

    def workspace_of(self, ctx: ClawContext, agent_id: str) -> str:
        return f"{ctx.claw_home}/workspaces/{agent_id}"

    def entry(self, ctx: ClawContext, agent_id: str, cwd: str | None = None) -> dict[str, Any]:
        entry: dict[str, Any] = {"workspace": self.workspace_of(ctx, agent_id),
                                 "subagents": {"allowAgents": self.setup.allowed(agent_id)}}
        return {**entry, "cwd": cwd} if cwd else entry

    def env(self, ctx: ClawContext) -> dict[str, str]:
        return {**super().env(ctx), "EDICT_HOME": self.edict_home(ctx)}

    def role_turn(self, ctx: ClawContext, agent: str, message: str, label: str, seconds_left: float) -> TurnResult:
        session_id = f"{ctx.attempt_id}-{agent}"
        if (agent, session_id) not in self.sessions:
            self.sessions.append((agent, session_id))
        budgets = ctx.budgets.model_copy(update={"seconds": max(1.0, seconds_left)})
        return self.agent_turn(ctx.model_copy(update={"budgets": budgets}), message, label=label,
                               session_id=session_id, agent=agent)

    def read_board(self, ctx: ClawContext) -> list[dict[str, Any]]:
        try:
            tasks = json.loads(ctx.sandbox.read_file(f"{self.edict_home(ctx)}/data/tasks_source.json"))
        except Exception:  # noqa: BLE001 - a missing or garbled board is "no task yet"
            return []
        return [t for t in tasks if isinstance(t, dict)] if isinstance(tasks, list) else []

    def backup_session(self, ctx: ClawContext, dest: Path) -> list[Path]:
        saved = self.export_trajectories(ctx, dest, self.sessions)
        board = self.read_board(ctx)
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "edict-kanban.json").write_text(json.dumps(board, ensure_ascii=False, indent=1))
        return [*saved, dest / "edict-kanban.json"]


def checkout_from_env() -> Path | None:
    return settings().edict_checkout


class EdictConfig(OpenClawConfig):
    checkout: Path | None = Field(default_factory=checkout_from_env,
                                  description=f"A checkout of cft0808/edict (default ${CHECKOUT_ENV}).")
    court: CourtRules = Field(default_factory=CourtRules, description="The dispatch's idle, reserve and limits.")
    wall_clock_s: float | None = Field(None, gt=0, description="Limit of one whole dispatch; None = budgets.seconds.")
    keyed_when_set: ClassVar[frozenset[str]] = OpenClawConfig.keyed_when_set | {"runtime_preface"}
    runtime_preface: bool = Field(False, description="Write UniClawBench's TOOLS.md and AGENTS.md preface "
                                                     "(clawmark.claws.edict_workspace) into every agent's workspace.")


class EdictClaw(CourtOnOpenClaw):
    name = "edict"
    version = f"unset+openclaw.{OPENCLAW_VERSION}"
    Config = EdictConfig

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__(config)
        self.setup: EdictCheckout | None = None
        checkout = self.config.checkout  # type: ignore[attr-defined]
        if checkout is not None:  # bad input fails here, before any run
            self.setup = load_checkout(checkout, "edict.checkout")
            self.version = self.court_version()  # type: ignore[misc]

    def court_version(self) -> str:
        return f"{self.setup.commit if self.setup else 'unset'}+openclaw.{self.release}"

    @property
    def list_note(self) -> str:
        return "" if self.setup else f"needs setting `checkout` (or ${CHECKOUT_ENV}): an EDICT checkout"

    def require_checkout(self) -> EdictCheckout:
        if self.setup is None:
            raise ClawError(f"claw edict: setting `checkout` is not set (nor ${CHECKOUT_ENV}): it must name a "
                            f"checkout of the EDICT project (cft0808/edict), whose agents and personas the court runs")
        return self.setup

    def settings(self) -> dict[str, Any]:
        """The court counts by its commit, not by where the checkout sits on this host (unset: the
        attempt fails at ``create_agent``, naming the setting)."""
        settings = {**super().settings(), "edict_commit": self.setup and self.setup.commit}
        settings["checkout"] = self.setup and self.setup.folder.name
        return settings

    def create_agent(self, ctx: ClawContext) -> None:
        setup = self.require_checkout()
        with tempfile.TemporaryDirectory() as staging:
            folder = Path(staging) / "edict"
            for part in CHECKOUT_PARTS:
                if (setup.folder / part).is_dir():
                    shutil.copytree(setup.folder / part, folder / part, symlinks=False)
            folder.mkdir(exist_ok=True)
            files = {a.id: self.workspace_files(ctx, a.id) for a in setup.agents}
            ids = [a.id for a in setup.agents]
            tools = {"agentToAgent": {"enabled": True, "allow": ids}, "sessions": {"visibility": "all"}}
            self.install_court(ctx, folder, f"echo '[]' > {self.edict_home(ctx)}/data/tasks_source.json", files,
                               {a: self.entry(ctx, a, self.workspace_of(ctx, a)) for a in ids}, ENTRY, tools)

    def workspace_files(self, ctx: ClawContext, agent: str) -> dict[str, str]:
        """SOUL.md and AGENTS.md (EDICT's shared and group rules); with ``runtime_preface``, as
        UniClawBench writes them: AGENTS.md opens with its runtime rules and ends with the role's
        own (the SOUL.md text), and TOOLS.md is added."""
        setup, config = self.require_checkout(), self.config
        soul, rules = setup.souls[agent], setup.agent_rules[agent]
        if not config.runtime_preface:  # type: ignore[attr-defined]
            return {"SOUL.md": soul, "AGENTS.md": rules}
        preface = agents_md_preface(agent, self.edict_home(ctx), ctx)
        return {"SOUL.md": soul, "AGENTS.md": f"{preface}\n{rules.strip()}\n\n## The role's own rules\n\n{soul}",
                "TOOLS.md": tools_md(agent, setup.allowed(agent), ctx.skills_dir)}

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        config: Any = self.config
        return Court(self, ctx, turn, config.wall_clock_s or ctx.budgets.seconds, config.court).run(message)


def default_config_dir() -> Path:
    return TASKS_CATALOG / "edict"


class Edict3RoleConfig(OpenClawConfig):
    config_dir: Path = Field(default_factory=default_config_dir,
                             description="Directory: agents.json + agents/<id>/SOUL.md (+ dispatch.yaml).")
    max_dispatches: int = Field(12, ge=1, description="Role turns between the entry turn and the report.")
    wall_clock_s: float | None = Field(None, gt=0, description="Limit of one whole dispatch; None = budgets.seconds.")
    # The dispatcher hands the task from role to role: roles do not spawn each other
    # (sessions_spawn) nor leave background jobs behind (process). Without these tools OpenClaw
    # also stops appending its runtime-facts message to every request.
    deny_tools: list[str] = Field(default_factory=lambda: ["sessions_spawn", "process"],
                                  description="OpenClaw tools.deny for every role.")


class Edict3RoleClaw(CourtOnOpenClaw):
    """Test double of ``edict``: three roles, a role that leaves the state unchanged stalls the
    dispatch, ``Blocked`` ends it, no idle or timeout report (tasks_catalog/edict/README.md)."""

    name = "edict-3role"
    version = f"{OPENCLAW_VERSION}+edict-3role"
    Config = Edict3RoleConfig
    list_note = "TEST DOUBLE of edict: three roles of our own, not EDICT's court"

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__(config)
        self.setup: EdictSetup = load_edict(self.config.config_dir)  # type: ignore[attr-defined]
        self.config_digest = tree_digest(self.setup.folder)[:12]
        self.version = self.court_version()  # type: ignore[misc]

    def court_version(self) -> str:
        """OpenClaw's release and the court's content (rows and `claws list` show it)."""
        return f"{self.release}+edict-3role.{self.config_digest}"

    def settings(self) -> dict[str, Any]:
        """The directory counts by its content, not by where it sits on this host."""
        settings = {**super().settings(), "config_digest": self.config_digest}
        settings["config_dir"] = self.setup.folder.name
        return settings

    def create_agent(self, ctx: ClawContext) -> None:
        home = self.edict_home(ctx)
        cwd = None if self.setup.rules.agent_cwd == "task" else "workspace"
        entries = {a.id: self.entry(ctx, a.id, cwd and self.workspace_of(ctx, a.id)) for a in self.setup.agents}
        self.install_court(ctx, self.setup.folder, f"(test -f {home}/data/tasks_source.json || echo '[]' > "
                           f"{home}/data/tasks_source.json)", {a.id: {"SOUL.md": self.setup.souls[a.id]}
                                                               for a in self.setup.agents}, entries,
                           self.setup.rules.entry_agent)

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        config: Any = self.config
        return Dispatch(self, ctx, turn, config.wall_clock_s or ctx.budgets.seconds).run(message)
