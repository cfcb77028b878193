"""``edict``: EDICT's role agents on OpenClaw, dispatched the way UniClawBench runs them.

One ``send_task`` is the whole dispatch: the entry agent (``taizi``) gets the message; then, while
the kanban's task is not in a terminal state, the agent owning its state gets a turn (its own
OpenClaw session, so each role keeps its history); last, the entry agent writes the final report.
A wall-clock limit covers the whole dispatch (each turn's ``--timeout`` is what is left of it),
and a role that leaves the state unchanged ends it (``stalled``) instead of looping.

The roles come from an EDICT configuration directory (:mod:`clawmark.claws.edict_config`):
``config_dir`` defaults to ``$CLAWMARK_EDICT_DIR`` or clawmark's small one (``tasks_catalog/edict``);
point it at a checkout of the public EDICT project to run its real court (that folder's README). The directory is
copied into the claw home as ``EDICT_HOME``; each role gets an OpenClaw agent whose workspace
holds its SOUL.md (``__REPO_DIR__`` replaced by ``EDICT_HOME``) and links to ``data/`` and
``scripts/``, as EDICT's own installer sets them up.
"""

from __future__ import annotations

import json
import os
import shlex
import threading
from pathlib import Path
from typing import Any

from pydantic import Field

from clawmark.claws.base import ClawContext, ClawError, TurnResult
from clawmark.claws.edict_config import EdictSetup, load_edict
from clawmark.claws.edict_dispatch import Dispatch
from clawmark.claws.openclaw import OPENCLAW_VERSION, OpenClawClaw, OpenClawConfig
from clawmark.runtime.recipes import tree_digest
from clawmark.settings import TASKS_CATALOG

REPO_MARK = "__REPO_DIR__"


def default_config_dir() -> Path:
    """``$CLAWMARK_EDICT_DIR`` (e.g. a checkout of the public EDICT project), else ours."""
    return Path(os.environ.get("CLAWMARK_EDICT_DIR") or TASKS_CATALOG / "edict")


class EdictConfig(OpenClawConfig):
    config_dir: Path = Field(default_factory=default_config_dir,
                             description="EDICT directory: agents.json + agents/<id>/SOUL.md (+ dispatch.yaml).")
    max_dispatches: int = Field(12, ge=1, description="Role turns between the entry turn and the report.")
    wall_clock_s: float | None = Field(None, gt=0, description="Limit of one whole dispatch; None = budgets.seconds.")
    # The dispatcher hands the task from role to role, as UniClawBench's orchestrator does: roles
    # do not spawn each other (sessions_spawn) nor leave background jobs behind (process). Without
    # these tools OpenClaw also stops appending its runtime-facts message to every request.
    deny_tools: list[str] = Field(default_factory=lambda: ["sessions_spawn", "process"],
                                  description="OpenClaw tools.deny for every role.")


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


class EdictClaw(OpenClawClaw):
    name = "edict"
    version = f"{OPENCLAW_VERSION}+edict"
    Config = EdictConfig
    routing_note = ROUTING_NOTE
    usage_report = "openclaw --json of every role turn, summed"

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__(config)
        self.setup: EdictSetup = load_edict(self.config.config_dir)  # bad input fails here, before any run
        self.config_digest = tree_digest(self.setup.folder)[:12]
        # The exact version: OpenClaw's release and the court's content (rows and `claws list` show it).
        self.version = f"{OPENCLAW_VERSION}+edict.{self.config_digest}"  # type: ignore[misc]
        self.sessions: list[tuple[str, str]] = []
        self.stopped = threading.Event()  # set at the host deadline: the dispatch ends at its next step

    def settings(self) -> dict[str, Any]:
        """The directory counts by its content, not by where it sits on this host."""
        settings = {**super().settings(), "config_digest": self.config_digest}
        settings["config_dir"] = self.setup.folder.name
        return settings

    def stop(self, ctx: ClawContext) -> None:
        self.stopped.set()

    def edict_home(self, ctx: ClawContext) -> str:
        return f"{ctx.claw_home}/edict"

    def create_agent(self, ctx: ClawContext) -> None:
        home, staging = self.edict_home(ctx), f"{ctx.claw_home}/edict-copy"
        ctx.sandbox.copy_in(self.setup.folder, staging)  # lands as staging/<folder name>
        placed = ctx.sandbox.exec(f"rm -rf {home} && mv {staging}/{shlex.quote(self.setup.folder.name)} {home} && "
                                  f"rmdir {staging} && mkdir -p {home}/data && (test -f {home}/data/tasks_source.json "
                                  f"|| echo '[]' > {home}/data/tasks_source.json)", timeout_s=60)
        if placed.exit_code != 0:
            raise ClawError(f"could not install the EDICT directory at {home}: {placed.stderr[-500:]}")
        for agent in self.setup.agents:
            workspace = self._workspace(ctx, agent.id)
            ctx.sandbox.exec(f"mkdir -p {workspace} && ln -sfn {home}/data {workspace}/data && "
                             f"ln -sfn {home}/scripts {workspace}/scripts", timeout_s=60)
            ctx.sandbox.write_file(f"{workspace}/SOUL.md", self.setup.souls[agent.id].replace(REPO_MARK, home).encode())
        config = self.openclaw_config(ctx, agents=self._entries(ctx))
        config["agents"]["ownership"] = "explicit"  # a roster of several agents must say so (2026.9)
        ctx.sandbox.write_file(self.config_path(ctx), json.dumps(config, indent=1).encode())
        self.hand_home_over(ctx)

    def _workspace(self, ctx: ClawContext, agent_id: str) -> str:
        return f"{ctx.claw_home}/workspaces/{agent_id}"

    def _entries(self, ctx: ClawContext) -> dict[str, Any]:
        entries = {}
        for agent in self.setup.agents:
            entry: dict[str, Any] = {"workspace": self._workspace(ctx, agent.id),
                                     "subagents": {"allowAgents": self.setup.allowed(agent.id)}}
            if self.setup.rules.agent_cwd == "workspace":
                entry["cwd"] = self._workspace(ctx, agent.id)
            entries[agent.id] = entry
        return entries

    def env(self, ctx: ClawContext) -> dict[str, str]:
        return {**super().env(ctx), "EDICT_HOME": self.edict_home(ctx)}

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        config: Any = self.config
        limit = config.wall_clock_s or ctx.budgets.seconds
        return Dispatch(self, ctx, turn, limit).run(message)

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
