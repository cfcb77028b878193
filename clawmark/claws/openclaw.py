"""``openclaw``: the real npm package (2026.9.6) running INSIDE the instance container.
Under the ``ucb-paper`` profile it is 2026.3.11 (image ``claw-openclaw-2026.3.11``), which takes
an older config (no ``cwd``; exec approvals as ``security``/``ask``), the message as an argument,
and keeps JSONL session files, copied instead of exported (``keeps_jsonl_sessions``).

The claw image ``images/claw-openclaw`` holds Node 24 and OpenClaw in ``/opt/claws/openclaw``,
shared read-only into the instance container as a seeded volume (:mod:`clawmark.claws.volumes`).
``create_agent`` writes ``openclaw.json`` into the claw home (``OPENCLAW_STATE_DIR`` /
``OPENCLAW_CONFIG_PATH``): one custom OpenAI-compatible provider at the attempt's gateway URL,
its key taken from the environment by OpenClaw's ``${VAR}`` substitution (never on disk), the
model priced like the gateway prices it (so OpenClaw's own cost figure is a real cross-check),
the ``coding`` tool profile and ``tools.exec.mode: full`` (no approval prompts: the container is
the sandbox), its persona workspace in the claw home and its working directory in the repo.
In a headed task container (the desktop image) the ``browser`` tool is added to the profile,
shown to the model directly (Tool Search off, which would defer it behind a search tool), and
attached to the desktop's Chromium over CDP (``attachOnly``: OpenClaw never launches its own),
with private-network pages allowed (task services listen on the container's loopback).
The memory plugin runs as shipped; ``memory_plugin: false`` (a keyed setting) turns it off, a
fifth of a 2026.9.6 turn's CPU, at the cost of its tools and its prompt section.

Each turn is ``openclaw agent --local --session-id <sid> --message-file F --json --timeout N``;
a follow-up turn reuses the session id. The JSON envelope, not the exit code, decides: OpenClaw
exits 1 on any failure and prints one of three shapes (``{ok: false, error}``, a reply whose
``meta.error`` is set, or payloads flagged ``isError``). Provider failures are typed from the
gateway ledger (:func:`clawmark.attempts.outcome.provider_failure`), the witness every claw shares.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from clawmark.claws.base import ClawAdapter, ClawContext, ClawError, Stopwatch, TurnResult, Usage
from clawmark.claws.browser_tool import has_desktop
from clawmark.claws.openclaw_envelope import envelope_usage, parse_envelope, turn_verdict
from clawmark.claws.transcripts.openclaw import SESSIONS_PREFIX
from clawmark.claws.volumes import seeded_volume
from clawmark.gateway.client import default_prices
from clawmark.taskenv.desktop import CDP_PORT

if TYPE_CHECKING:
    from clawmark.runtime.execution import ExecResult

IMAGE_NAME = "claw-openclaw"
OPENCLAW_VERSION = "2026.9.6"
ROOT = "/opt/claws/openclaw"
OPENCLAW = f"{ROOT}/bin/clawmark-openclaw"
COMPILE_CACHE = f"{ROOT}/compile-cache"
PROVIDER = "clawmark"
TOKEN_ENV = "CLAWMARK_GATEWAY_TOKEN"
LOCAL_KEY = "clawmark-local"  # OpenClaw accepts a non-secret marker for private-network providers
DESKTOP_PROFILE = "desktop"


class OpenClawConfig(ClawAdapter.Config):
    # The protocol profiles' settings (clawmark.claws.profiles), keyed only when set.
    keyed_when_set: ClassVar[frozenset[str]] = frozenset({"reasoning", "context_tokens", "native_browser",
                                                          "native_skills", "memory_plugin"})
    tool_profile: str = Field("coding", description="OpenClaw tools.profile.")
    exec_mode: str = Field("full", description="OpenClaw tools.exec.mode (full: no approval prompts).")
    deny_tools: list[str] = Field(default_factory=list, description="OpenClaw tools.deny (none: OpenClaw as shipped).")
    context_window: int = Field(128_000, gt=0, description="contextWindow declared for the model.")
    max_tokens: int = Field(8192, gt=0, description="maxTokens declared for the model.")
    reasoning: bool = Field(False, description="`reasoning` flag declared for the model.")
    context_tokens: int | None = Field(None, gt=0, description="agents.defaults.contextTokens; None = OpenClaw's own.")
    native_browser: bool = Field(True, description="OpenClaw's browser tool on the desktop's Chromium; False turns "
                                                   "it off (browser.enabled: false), as UniClawBench does in favour "
                                                   "of the agent-browser CLI skill.")
    native_skills: str | None = Field(None, description="commands.nativeSkills; None = OpenClaw's own.")
    memory_plugin: bool = Field(True, description="OpenClaw's memory plugin (memory-core) as shipped; False "
                                                  "turns it off (plugins.slots.memory: none): no memory_search/"
                                                  "memory_get/intent tools, no Memory Recall prompt section, no "
                                                  "memory index workers (~5 s of CPU less per turn).")
    grace_s: float = Field(120.0, description="Host deadline beyond OpenClaw's own --timeout (startup ~15 s).")


class OpenClawClaw(ClawAdapter):
    name = "openclaw"
    version = OPENCLAW_VERSION
    needs_image_layer = IMAGE_NAME
    runs_in_container = True
    usage_report = "openclaw --json: per-turn tokens and cost (priced like the gateway)"
    Config = OpenClawConfig

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__(config)
        self.turn_usages: list[Usage] = []

    def docker_args(self, ctx: ClawContext) -> dict[str, Any]:
        volume = seeded_volume(self.needs_image_layer or IMAGE_NAME, ROOT, f"{OPENCLAW} --version")
        return {"network": "gateway", "volumes": {volume: {"bind": ROOT, "mode": "ro"}}}

    @property
    def release(self) -> str:
        """The OpenClaw release in the container: the claw's version (a profile may pin another);
        a court on OpenClaw names its own version and says which release it runs on."""
        return self.version

    def post_container_start(self, ctx: ClawContext) -> None:
        probe = ctx.sandbox.exec(f"mkdir -p {ctx.claw_home}/state {ctx.claw_home}/home && {OPENCLAW} --version",
                                 timeout_s=120)
        if probe.exit_code != 0 or self.release not in probe.stdout:
            raise ClawError(f"openclaw {self.release} is not runnable in the container: "
                            f"{(probe.stdout + probe.stderr)[-500:]}")

    def create_agent(self, ctx: ClawContext) -> None:
        config: Any = self.config
        config = self.openclaw_config(ctx, browser=config.native_browser and has_desktop(ctx.sandbox))
        ctx.sandbox.write_file(self.config_path(ctx), json.dumps(config, indent=1).encode())
        self.hand_home_over(ctx)

    def hand_home_over(self, ctx: ClawContext) -> None:
        """On the closed-loop track the claw acts as the task's executor user: it owns its home."""
        if ctx.exec_user:
            ctx.sandbox.exec(f"chown -R {shlex.quote(ctx.exec_user)} {shlex.quote(ctx.claw_home)}", timeout_s=120)

    def config_path(self, ctx: ClawContext) -> str:
        return f"{ctx.claw_home}/state/openclaw.json"

    def openclaw_config(self, ctx: ClawContext, browser: bool = False) -> dict[str, Any]:
        """The whole openclaw.json (a court adds its agents: clawmark.claws.edict_workspace);
        ``browser`` the browser tool on the desktop's Chromium."""
        config: Any = self.config
        legacy = keeps_jsonl_sessions(self.release)  # 2026.3: no `cwd`; exec approvals are security + ask
        defaults = {"model": {"primary": f"{PROVIDER}/{ctx.model}"}, "workspace": f"{ctx.claw_home}/workspace",
                    **({} if legacy else {"cwd": ctx.workspace}), "timeoutSeconds": int(ctx.budgets.seconds),
                    **({"contextTokens": config.context_tokens} if config.context_tokens else {})}
        execution = ({"security": config.exec_mode, "ask": "off"} if legacy else {"mode": config.exec_mode})
        tools = {"profile": config.tool_profile, "exec": {**execution, "host": "gateway"},
                 # Tool Search (on by default) would hide the browser behind a search-and-call code tool.
                 **({"alsoAllow": ["browser"], "toolSearch": False} if browser else {}),
                 **({"deny": list(config.deny_tools)} if config.deny_tools else {})}
        return {
            "models": {"mode": "replace", "providers": {PROVIDER: self._provider(ctx)}},
            "agents": {"defaults": defaults},
            "tools": tools,
            # The store lives and dies with one attempt's container, so pruning it is work with no
            # effect; enforce mode's SQLite reclamation worker cost ~7 s of CPU per turn (26.5 s →
            # 19.7 s for a one-reply turn, measured in the image). "warn" only reports.
            "session": {"maintenance": {"mode": "warn"}},
            **({"browser": desktop_browser()} if browser else {}),
            **({} if config.native_browser else {"browser": {"enabled": False}}),
            **({"commands": {"nativeSkills": config.native_skills}} if config.native_skills else {}),
            # memory-core starts three index/search/publication worker threads per turn, each loading
            # its modules again, for recall over a memory a fresh attempt does not have. Off, a
            # one-reply 2026.9.6 turn costs 3.9-5.8 s less CPU than a turn run beside it (cpuacct;
            # as shipped 22.5-31.1 s over 8 turns, off 17.4-27.2 s over 4); 2026.3.11 gains nothing
            # (7.0 s either way). Off only when asked: it changes the prompt (its Memory Recall
            # section) and the tool catalog, so it is a keyed setting, not a silent default.
            **({} if config.memory_plugin else {"plugins": {"slots": {"memory": "none"}}}),
        }

    def _provider(self, ctx: ClawContext) -> dict[str, Any]:
        config: Any = self.config
        model = {"id": ctx.model, "name": ctx.model, "reasoning": config.reasoning, "input": ["text"],
                 "cost": _openclaw_cost(ctx.model), "contextWindow": config.context_window,
                 "maxTokens": config.max_tokens, "compat": {"supportsUsageInStreaming": True}}
        return {"baseUrl": ctx.gateway_url, "apiKey": "${%s}" % TOKEN_ENV, "api": "openai-completions",
                "models": [model]}

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        return self.agent_turn(ctx, message, label=f"turn{turn}", session_id=ctx.attempt_id)

    def agent_turn(self, ctx: ClawContext, message: str, *, label: str, session_id: str,
                   agent: str | None = None) -> TurnResult:
        """One ``openclaw agent --local`` turn of ``agent`` (the default agent when None)."""
        clock = Stopwatch()
        message_file = f"{ctx.claw_home}/message-{label}.txt"
        ctx.sandbox.write_file(message_file, message.encode())
        argv = [OPENCLAW, "agent", "--local", "--session-id", session_id, "--json", "--timeout",
                str(int(ctx.budgets.seconds))] + (["--agent", agent] if agent else [])
        # 2026.3 has no --message-file: the message is one argument (a kernel limit of 128 KiB).
        message_arg = (f' --message "$(cat {shlex.quote(message_file)})"' if keeps_jsonl_sessions(self.release)
                       else " " + _join(["--message-file", message_file]))
        config: Any = self.config
        result = ctx.sandbox.exec(_join(argv) + message_arg, timeout_s=ctx.budgets.seconds + config.grace_s,
                                  workdir=ctx.workspace, env=self.env(ctx), user=ctx.exec_user)
        logs = self._save_logs(ctx, result, label)
        envelope = parse_envelope(result.stdout)
        verdict = turn_verdict(envelope, result, ctx.ledger_path)
        usage = envelope_usage(envelope)
        if usage is not None:
            self.turn_usages.append(usage)
        return TurnResult(**verdict, exit_code=result.exit_code, log_paths=logs, session_id=session_id,
                          duration_s=clock.elapsed(), usage=usage)

    def env(self, ctx: ClawContext) -> dict[str, str]:
        return {
            # Not the claw home itself: OpenClaw rewrites paths under $HOME to `~/…` in exec commands
            # and the tilde then reaches programs unexpanded (seen with 2026.9.6).
            "HOME": f"{ctx.claw_home}/home",
            "OPENCLAW_STATE_DIR": f"{ctx.claw_home}/state",
            "OPENCLAW_CONFIG_PATH": self.config_path(ctx),
            TOKEN_ENV: ctx.gateway_token or LOCAL_KEY,
            "NO_COLOR": "1",
            "TERM": "dumb",
            "NODE_COMPILE_CACHE": COMPILE_CACHE,  # warmed in the image; read-only, so no turn writes it
        }

    def _save_logs(self, ctx: ClawContext, result: ExecResult, label: str) -> list[str]:
        ctx.host_dir.mkdir(parents=True, exist_ok=True)
        out, err = ctx.host_dir / f"openclaw-{label}.json", ctx.host_dir / f"openclaw-{label}.stderr.log"
        out.write_text(result.stdout)
        err.write_text(result.stderr)
        return [str(out), str(err)]

    def collect_usage(self, ctx: ClawContext) -> Usage | None:
        """OpenClaw's own per-turn usage, summed over the turns of this attempt."""
        if not self.turn_usages:
            return None
        total = Usage(cost_usd=0.0)
        for usage in self.turn_usages:
            total.input_tokens += usage.input_tokens
            total.output_tokens += usage.output_tokens
            total.cached_tokens += usage.cached_tokens
            total.calls += usage.calls
            total.cost_usd += usage.cost_usd
        return total

    def backup_session(self, ctx: ClawContext, dest: Path) -> list[Path]:
        return self.export_trajectories(ctx, dest, [(None, ctx.attempt_id)])

    def export_trajectories(self, ctx: ClawContext, dest: Path, sessions: list[tuple[str | None, str]]) -> list[Path]:
        """``openclaw sessions export-trajectory`` of each (agent, session id) into ``dest``; the
        files saved (a bundle folder per agent: events.jsonl, session-branch.json, tools.json...).
        A release that keeps JSONL sessions has no such command: its session files are copied."""
        if keeps_jsonl_sessions(self.release):
            return self.copy_session_files(ctx, dest, sorted({agent for agent, _sid in sessions}, key=str))
        exports = f"{ctx.claw_home}/exports"
        saved = []
        for agent, session_id in sessions:
            key = f"agent:{agent or 'main'}:explicit:{session_id}"
            name = f"openclaw-trajectory-{agent or 'main'}"
            command = (f"mkdir -p {exports} && " + _join([OPENCLAW, "sessions", "export-trajectory", "--session-key",
                       key, "--workspace", exports, "--output", name, "--json"]))
            result = ctx.sandbox.exec(command, timeout_s=180, workdir=ctx.claw_home, env=self.env(ctx),
                                      user=ctx.exec_user)
            dest.mkdir(parents=True, exist_ok=True)
            if result.exit_code != 0:  # a missing backup is logged, never fatal: the patch is what counts
                (dest / f"{name}.error.log").write_text(f"exit {result.exit_code}\n{result.stdout}\n{result.stderr}")
                continue
            folder = ctx.sandbox.copy_out(f"{exports}/.openclaw/trajectory-exports/{name}", dest)
            saved += sorted(p for p in folder.rglob("*") if p.is_file())
        return saved


    def copy_session_files(self, ctx: ClawContext, dest: Path, agents: list[str | None]) -> list[Path]:
        """Each agent's ``<state>/agents/<id>/sessions/`` (``<session id>.jsonl`` and its index) into
        ``dest/openclaw-sessions-<agent>/`` (links and specials skipped: the folder is the claw's)."""
        saved = []
        for agent in agents:
            target = dest / f"{SESSIONS_PREFIX}{agent or 'main'}"
            target.mkdir(parents=True, exist_ok=True)
            try:
                ctx.sandbox.copy_out_skipping_unsafe(f"{ctx.claw_home}/state/agents/{agent or 'main'}/sessions", target)
            except Exception as exc:  # noqa: BLE001 - a missing backup is logged, never fatal
                (dest / f"{target.name}.error.log").write_text(f"{type(exc).__name__}: {exc}")
            saved += sorted(p for p in target.rglob("*.jsonl") if p.is_file())
        return saved


def keeps_jsonl_sessions(version: str) -> bool:
    """OpenClaw 2026.3.11 (UniClawBench's pin) keeps each session as a JSONL file; 2026.9.6 keeps
    them in SQLite and exports trajectories. The switch lies between; those are the two run here."""
    release = tuple(int(part) for part in version.split("+")[0].split(".")[:2] if part.isdigit())
    return release < (2026, 9)


def desktop_browser() -> dict[str, Any]:
    """OpenClaw's browser block: one attach-only profile on the desktop's Chromium (CDP)."""
    return {"enabled": True, "defaultProfile": DESKTOP_PROFILE, "attachOnly": True,
            "ssrfPolicy": {"dangerouslyAllowPrivateNetwork": True},
            "profiles": {DESKTOP_PROFILE: {"cdpUrl": f"http://127.0.0.1:{CDP_PORT}", "attachOnly": True}}}


def _openclaw_cost(model: str) -> dict[str, float]:
    """The gateway's price of ``model`` in OpenClaw's terms (USD per million tokens); zeros when
    unpriced, and then OpenClaw's cost figure is not compared (see usage_check)."""
    price = default_prices().own_price(model)
    if price is None:
        return {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    cached = price.cached_input if price.cached_input is not None else price.input
    write = price.cache_write if price.cache_write is not None else price.input
    return {"input": price.input, "output": price.output, "cacheRead": cached, "cacheWrite": write}


def _join(parts: list[str]) -> str:
    return " ".join(shlex.quote(part) for part in parts)
