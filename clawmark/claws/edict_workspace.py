"""What a court on OpenClaw writes beside its agents: the roster in the form its OpenClaw release
reads, and, under the ``ucb-paper`` profile, UniClawBench's TOOLS.md and AGENTS.md preface.

Roster. OpenClaw 2026.9 keeps the agents as ``agents.entries`` (a map by id) and needs
``agents.ownership: explicit`` for more than one; 2026.3.11 (UniClawBench's pin) knows neither:
its agents are ``agents.list`` (each with its ``id``, the entry agent ``default: true``, as
UniClawBench's ``inject_edict_config`` writes them) and it has no per-agent ``cwd`` (an agent's
runs start in its workspace, which is where the real court points ``cwd`` anyway).

Preface. UniClawBench's runner writes every EDICT agent a TOOLS.md and opens its AGENTS.md with
runtime rules before EDICT's own texts (``lib/runner/edict.py`` at f8dd80f:
``build_edict_tools_md``, ``build_edict_agents_md``). The facts below are those, in our words:
tools are really called, never written out; the kanban command line and board; hand-offs by
``sessions_send`` to ``agent:<id>:main`` or ``sessions_spawn`` with ``mode: "run"`` (no thread
binding); the browser only through the ``agent-browser`` command (OpenClaw's own is off), whose
rules go into every spawned task; evidence under the results root; the agents each may call.
"""

from __future__ import annotations

from typing import Any

from clawmark.claws.base import ClawContext
from clawmark.taskenv.container_layout import RESULTS_DIR, SOURCES_DIR

BROWSER_SKILL = "agent-browser-control"


def roster_block(entries: dict[str, dict[str, Any]], *, legacy: bool, entry_agent: str) -> dict[str, Any]:
    """The part of ``agents`` that lists the court's agents, for 2026.9 or (``legacy``) 2026.3."""
    if not legacy:
        return {"entries": entries, "ownership": "explicit"}
    return {"list": [{"id": agent, **{k: v for k, v in entry.items() if k != "cwd"},
                      **({"default": True} if agent == entry_agent else {})} for agent, entry in entries.items()]}


def tools_md(agent: str, allowed: list[str], skills_dir: str) -> str:
    lines = [
        "# TOOLS.md: the EDICT court in this benchmark",
        "",
        "## Rules that always hold",
        "- To run a command, call the `exec` tool. A bash or python command written into your reply runs nothing.",
        "- To pass work to another agent, call `sessions_send` or `sessions_spawn`. Saying that the task went to "
        "the secretariat or the department of state affairs hands nothing over.",
        "- Code blocks, example commands and plans are not actions.",
        "",
        "## Which tool does what",
        "- The board: `exec` running `python3 scripts/kanban_update.py ...`.",
        "- Handing work to another agent's main session: `sessions_send` to the session key `agent:<agent_id>:main`.",
        "- Starting a sub-agent for a piece of work: `sessions_spawn` with `mode: \"run\"` always, e.g. "
        "`sessions_spawn(task: \"...\", agentId: \"zhongshu\", mode: \"run\")`. Never `thread: true` and never "
        "`mode: \"session\"`: this runtime cannot bind threads.",
        "- After a hand-off, check what comes back; one message sent is not the end of your work.",
        *browser_lines(skills_dir),
        "- When you start a sub-agent with `sessions_spawn`, write into its task that the browser is the "
        "`agent-browser` command and not OpenClaw's `browser` tool; otherwise it will reach for the disabled one.",
    ]
    if allowed:
        lines += ["", "## Agents you may hand work to", *[f"- `{agent}` -> `{target}`" for target in allowed]]
    return "\n".join(lines) + "\n"


def browser_lines(skills_dir: str) -> list[str]:
    return [
        "- Web pages: `exec` running `agent-browser <command>`. OpenClaw's own `browser` tool is switched off "
        "in this benchmark: do not call it and do not count on it.",
        "  - The usual commands: `agent-browser open <url>`, `click @eN`, `fill @eN <text>`, `snapshot`, "
        "`screenshot <path>`, `eval '<js>'`.",
        "  - Take a fresh `snapshot` before every `click` or `fill` and use its `@eN` refs; old refs go stale.",
        f"  - Screenshots go to `agent-browser screenshot {RESULTS_DIR}/<name>.png` (add `--full` for the whole "
        "page; the viewport is usually enough).",
        f"  - Every command is listed in `{skills_dir}/{BROWSER_SKILL}/SKILL.md`.",
    ]


def agents_md_preface(agent: str, edict_home: str, ctx: ClawContext) -> str:
    """The runtime rules that open the agent's AGENTS.md (EDICT's shared, group and role rules follow)."""
    project = SOURCES_DIR if ctx.track == "closed_loop" else ctx.workspace
    return "\n".join([
        f"# AGENTS.md: the EDICT court in this benchmark ({agent})",
        "",
        "You work inside this benchmark's court of three departments and six ministries. In a main session and "
        "in a sub-agent session alike, this file is the protocol that comes before every other.",
        "",
        "## Where things are",
        f"- The court's shared folder (EDICT): `{edict_home}`",
        f"- The project's files: `{project}`",
        f"- The benchmark's results: `{RESULTS_DIR}`",
        "- The board's command line: `python3 scripts/kanban_update.py ...`; its data: `data/tasks_source.json`.",
        "- Work with other agents through `sessions_send` or `sessions_spawn`, within the agents `allowAgents` "
        "lets you reach; `sessions_spawn` always with `mode: \"run\"`, never `thread: true` or `mode: \"session\"`.",
        "- Every command and every hand-off is a real tool call; a reply that shows the command does not run it.",
        "",
        "## What this benchmark adds",
        *browser_lines(ctx.skills_dir),
        f"- Save evidence under `{RESULTS_DIR}` with names that say what it is. The checks or grading rules a user "
        "mentions are not work you have already done.",
        "- When you hand execution work to a sub-agent with `sessions_spawn` (above all work in a browser), "
        "repeat the two rules above in its task, or it may think there is no browser and piece evidence "
        "together with `curl` or hand-written HTML.",
    ]) + "\n"
