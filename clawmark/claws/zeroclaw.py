"""``zeroclaw``: ZeroClaw 0.8.4 (Rust, MIT/Apache) driven over ACP inside the instance container.

ZeroClaw is on no registry reachable here and its crates cannot be fetched, so the binary must
be supplied: ``images/claw-zeroclaw`` builds it from source where the network allows, or takes a
binary placed in that folder (its README says how). Until then ``docker_args`` fails with
``ImageBuildFailed`` (an infra error row) and ``clawmark claws list`` / ``doctor`` say so.

``create_agent`` writes ``config.toml`` into ``ZEROCLAW_CONFIG_DIR`` under the claw home: a
``custom`` OpenAI-compatible provider whose ``uri`` is the attempt's gateway URL, an agent bound
to it, a risk profile at ``level = "full"`` (no approval gates: the container is the sandbox;
one-shot approvals would fail closed) and a runtime profile whose ``max_tool_iterations`` is the
step limit (``budgets.steps``). Each turn runs :mod:`clawmark.claws.acp` in the container
next to ``zeroclaw acp``: ``session/new`` on turn 0 with ``cwd`` = the workspace,
``session/resume`` of the same session on follow-ups (ZeroClaw keeps sessions in SQLite), then
``session/prompt``. The prompt result (``stopReason``, ``content``) or its JSON-RPC error decides
the turn. ZeroClaw's own usage is ``<workspace>/state/costs.jsonl`` (a cross-check).

A stand-in of ``zeroclaw acp`` (the tests' ``tests/fixtures/zeroclaw/zeroclaw_standin.py``) runs
with ``standin: true`` and its rows say ``claw_version`` ``0.8.4-standin``: what answers
``--version`` must say whether it is a stand-in, and a program that disagrees with the setting
never gets a turn, so no stand-in row reads as the real 0.8.4.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from clawmark.claws.base import ClawAdapter, ClawContext, ClawError, Stopwatch, TurnResult, Usage
from clawmark.claws.volumes import seeded_volume

if TYPE_CHECKING:
    from clawmark.runtime.execution import ExecResult

RELEASE = "0.8.4"
STANDIN_SUFFIX = "-standin"
STANDIN_MARK = "stand-in"  # what a stand-in's --version says (tests/fixtures/zeroclaw/zeroclaw_standin.py)
IMAGE_NAME = "claw-zeroclaw"
ROOT = "/opt/claws/zeroclaw"
BINARY = f"{ROOT}/bin/zeroclaw"
ACP_SCRIPT = Path(__file__).with_name("acp.py")
AGENT = "clawmark"
NEEDS_BINARY = ("ZeroClaw is not on any registry reachable here: supply the binary "
                "(images/claw-zeroclaw/README.md) before running it")


class ZeroClawConfig(ClawAdapter.Config):
    command: list[str] = Field(default_factory=lambda: [BINARY, "acp"],
                               description="How to start the ACP server in the container.")
    host_dir: str | None = Field(None, description=f"A host folder mounted read-only at {ROOT} instead of the "
                                                   "claw-zeroclaw image's (a binary at hand; the tests' stand-in).")
    grace_s: float = Field(60.0, description="Host deadline beyond the ACP turn's own deadline.")
    standin: bool = Field(False, description="`command` is a stand-in of zeroclaw (its --version says so): rows "
                                             f"say {RELEASE}{STANDIN_SUFFIX}, never {RELEASE}.")
    # The protocol profiles' settings (clawmark.claws.profiles), keyed only when set.
    keyed_when_set: ClassVar[frozenset[str]] = frozenset({"tool_filter", "reasoning_effort"})
    tool_filter: list[str] | None = Field(None, description="The only tools the model is offered: the gateway drops "
                                                            "the others from each request's `tools` (as "
                                                            "Claw-SWE-Bench's proxy did); None = all of ZeroClaw's.")
    reasoning_effort: str | None = Field(None, description="[runtime] reasoning_effort (with reasoning_enabled) in "
                                                           "config.toml; None = ZeroClaw's own.")


class ZeroClawClaw(ClawAdapter):
    name = "zeroclaw"
    native_step_limit = True
    version = RELEASE
    needs_image_layer = IMAGE_NAME
    runs_in_container = True
    usage_report = "<workspace>/state/costs.jsonl: per-call tokens and cost"
    Config = ZeroClawConfig

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__(config)
        if self.config.standin:  # type: ignore[attr-defined]
            self.version = RELEASE + STANDIN_SUFFIX  # type: ignore[misc]

    def docker_args(self, ctx: ClawContext) -> dict[str, Any]:
        config: Any = self.config
        if config.host_dir:
            return {"network": "gateway", "volumes": {config.host_dir: {"bind": ROOT, "mode": "ro"}}}

        if not zeroclaw_image_present():  # opt-in: never start a source build from an attempt
            raise ClawError(f"image {IMAGE_NAME} is not built. {NEEDS_BINARY}")
        volume = seeded_volume(IMAGE_NAME, ROOT, f"{BINARY} --version")
        return {"network": "gateway", "volumes": {volume: {"bind": ROOT, "mode": "ro"}}}

    def post_container_start(self, ctx: ClawContext) -> None:
        config: Any = self.config
        probe = ctx.sandbox.exec(f"mkdir -p {self._config_dir(ctx)} {self._workspace(ctx)} && "
                                 f"command -v {shlex.quote(config.command[0])}", timeout_s=60)
        if probe.exit_code != 0:
            raise ClawError(f"{config.command[0]} is not in the container. {NEEDS_BINARY}")
        self._check_version(ctx)
        ctx.sandbox.write_file(self._acp_script(ctx), ACP_SCRIPT.read_bytes())

    def _check_version(self, ctx: ClawContext) -> None:
        """A supplied binary may be any release; the row says 0.8.4, so nothing else runs; and a
        stand-in runs only as one (``standin``), so its rows never pass for the real binary. The
        question is ``command`` with its subcommand (``acp``) replaced by ``--version``."""
        config: Any = self.config
        argv = [*config.command[:-1], "--version"]
        probe = ctx.sandbox.exec(" ".join(shlex.quote(a) for a in argv), timeout_s=60)
        reported = (probe.stdout or probe.stderr).strip()
        if probe.exit_code != 0 or not re.search(rf"(?<![\d.]){re.escape(RELEASE)}(?![\d.])", reported):
            raise ClawError(f"the supplied zeroclaw reports {reported[-200:]!r} (exit {probe.exit_code}); this "
                            f"adapter is pinned to {RELEASE}: supply that release (images/claw-zeroclaw/README.md)")
        if (STANDIN_MARK in reported.lower()) != config.standin:
            said = "is a stand-in" if config.standin else "is the real binary"
            raise ClawError(f"the settings say the zeroclaw command {said}, but it reports {reported[-200:]!r}: "
                            f"set standin: {str(not config.standin).lower()} so the rows name what ran")

    def _config_dir(self, ctx: ClawContext) -> str:
        return f"{ctx.claw_home}/zeroclaw"

    def _workspace(self, ctx: ClawContext) -> str:
        return f"{ctx.claw_home}/zeroclaw-workspace"

    def _acp_script(self, ctx: ClawContext) -> str:
        return f"{ctx.claw_home}/acp.py"

    def create_agent(self, ctx: ClawContext) -> None:
        ctx.sandbox.write_file(f"{self._config_dir(ctx)}/config.toml", self.config_toml(ctx).encode())
        if ctx.exec_user:  # on the closed-loop track the claw acts as the task's executor user
            ctx.sandbox.exec(f"chown -R {shlex.quote(ctx.exec_user)} {shlex.quote(ctx.claw_home)}", timeout_s=120)

    def config_toml(self, ctx: ClawContext) -> str:
        key = ctx.gateway_token or "clawmark-local"
        return "\n".join([
            f"[providers.models.custom.{AGENT}]", f"uri = {_toml(ctx.gateway_url)}", f"model = {_toml(ctx.model)}",
            f"api_key = {_toml(key)}", "",
            f"[risk_profiles.{AGENT}]", 'level = "full"', "",
            # the step limit: ZeroClaw 0.8.4 reads it from the agent's runtime profile only
            f"[runtime_profiles.{AGENT}]", f"max_tool_iterations = {ctx.budgets.steps}", "",
            f"[agents.{AGENT}]", f'model_provider = "custom.{AGENT}"', f'risk_profile = "{AGENT}"',
            f'runtime_profile = "{AGENT}"', f"workspace = {_toml(self._workspace(ctx))}", "",
            "[acp]", f'default_agent = "{AGENT}"', "", *self._reasoning(),
        ])

    def _reasoning(self) -> list[str]:
        effort = self.config.reasoning_effort  # type: ignore[attr-defined]
        return ["[runtime]", "reasoning_enabled = true", f"reasoning_effort = {_toml(effort)}", ""] if effort else []

    def gateway_tool_filter(self) -> list[str] | None:
        return self.config.tool_filter  # type: ignore[attr-defined]

    def env(self, ctx: ClawContext) -> dict[str, str]:
        return {"HOME": ctx.claw_home, "ZEROCLAW_CONFIG_DIR": self._config_dir(ctx), "NO_COLOR": "1", "TERM": "dumb"}

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        clock = Stopwatch()
        config: Any = self.config
        prompt_file, out = f"{ctx.claw_home}/prompt-{turn}.txt", f"{ctx.claw_home}/acp-turn{turn}.json"
        ctx.sandbox.write_file(prompt_file, message.encode())
        argv = ["python3", self._acp_script(ctx), "--session-file", f"{ctx.claw_home}/acp-session.json",
                # The host deadline (budget + the runner's grace) normally ends a long turn; the
                # client's own deadline is the backstop that cancels the turn cleanly.
                "--cwd", ctx.workspace, "--prompt-file", prompt_file, "--timeout", str(ctx.budgets.seconds + config.grace_s),
                "--agent", AGENT, "--out", out, "--", *config.command]
        result = ctx.sandbox.exec(" ".join(shlex.quote(a) for a in argv), timeout_s=ctx.budgets.seconds + 2 * config.grace_s,
                                  workdir=ctx.workspace, env=self.env(ctx), user=ctx.exec_user)
        outcome = self._read_json(ctx, out)
        logs = self._save_logs(ctx, result, outcome, turn)
        return TurnResult(**acp_verdict(outcome, result), exit_code=result.exit_code, log_paths=logs,
                          session_id=(outcome or {}).get("sessionId"), duration_s=clock.elapsed(),
                          usage=self.collect_usage(ctx))

    def _read_json(self, ctx: ClawContext, path: str) -> dict[str, Any] | None:
        try:
            return json.loads(ctx.sandbox.read_file(path))
        except Exception:  # noqa: BLE001 - no result file is itself the finding
            return None

    def _save_logs(self, ctx: ClawContext, result: ExecResult, outcome: dict[str, Any] | None,
                   turn: int) -> list[str]:
        ctx.host_dir.mkdir(parents=True, exist_ok=True)
        out = ctx.host_dir / f"zeroclaw-acp-turn{turn}.json"
        out.write_text(json.dumps(outcome, indent=1) if outcome is not None else result.stdout + result.stderr)
        return [str(out)]

    def collect_usage(self, ctx: ClawContext) -> Usage | None:
        """ZeroClaw's cost records (``<workspace>/state/costs.jsonl``), summed."""
        try:
            text = ctx.sandbox.read_file(f"{self._workspace(ctx)}/state/costs.jsonl").decode()
        except Exception:  # noqa: BLE001 - no records: no report
            return None
        return costs_usage([json.loads(line) for line in text.splitlines() if line.strip()])

    def backup_session(self, ctx: ClawContext, dest: Path) -> list[Path]:
        dest.mkdir(parents=True, exist_ok=True)
        try:
            folder = ctx.sandbox.copy_out(f"{self._workspace(ctx)}/sessions", dest)
        except Exception:  # noqa: BLE001 - a missing backup is not the attempt's failure
            return []
        return sorted(p for p in folder.rglob("*") if p.is_file())


def zeroclaw_image_present() -> bool:
    from clawmark.runtime.images import image_present, image_ref  # per call: tests stand in for image_present

    return image_present(image_ref(IMAGE_NAME))


def acp_verdict(outcome: dict[str, Any] | None, result: ExecResult) -> dict[str, Any]:
    """TurnResult fields from the ACP driver's result: the protocol decides, not exit codes."""
    if result.timed_out:
        return {"success": False, "timeout": True, "finish_reason": "timeout", "exit_status": "host_deadline",
                "error": "zeroclaw still running at the host deadline"}
    if outcome is None:
        return {"success": False, "finish_reason": "error", "exit_status": "no_result",
                "error": f"no ACP result (exit {result.exit_code}): {(result.stdout + result.stderr)[-500:]}"}
    if outcome.get("ok"):
        stop = str(outcome.get("stopReason") or "")
        ok = stop == "end_turn"
        return {"success": ok, "finish_reason": "stop" if ok else "error", "exit_status": stop or "no_stop_reason",
                "error": None if ok else f"zeroclaw stopped: {stop}"}
    error = outcome.get("error") or {}
    timed_out = bool(outcome.get("timeout"))
    return {"success": False, "timeout": timed_out, "finish_reason": "timeout" if timed_out else "error",
            "exit_status": f"acp_error_{error.get('code')}", "error": f"zeroclaw: {error.get('message', '')}"[:2000]}


def costs_usage(records: list[dict[str, Any]]) -> Usage:
    """Sum ZeroClaw's ``CostRecord`` lines (``{id, session_id, usage: {input_tokens,
    output_tokens, cached_input_tokens, cost_usd, pricing_available, ...}}``); cost NaN when
    any call was unpriced (ZeroClaw then records 0, which is not a price)."""
    usages = [r.get("usage") or {} for r in records]
    priced = bool(usages) and all(u.get("pricing_available", True) for u in usages)
    return Usage(input_tokens=sum(int(u.get("input_tokens") or 0) for u in usages),
                 output_tokens=sum(int(u.get("output_tokens") or 0) for u in usages),
                 cached_tokens=sum(int(u.get("cached_input_tokens") or 0) for u in usages), calls=len(usages),
                 cost_usd=math.fsum(float(u.get("cost_usd") or 0.0) for u in usages) if priced else math.nan)


def _toml(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string
