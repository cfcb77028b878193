"""``nanobot``: the real PyPI package ``nanobot-ai`` 0.3.5 running INSIDE the task container
(0.1.5.post3, UniClawBench's pin, under the ``ucb-paper`` profile: image ``claw-nanobot-0.1.5.post3``).

The image layer ``images/claw-nanobot`` holds a venv at ``/opt/claws/nanobot``, mounted
read-only like mini-swe-agent's (:mod:`clawmark.claws.volumes`). Each turn is one
``nanobot agent -c cfg.json -w <agent workspace> --session <attempt> --no-markdown -m <msg>``;
a follow-up turn is the same command with the same ``--session``, so nanobot reloads its own
saved conversation (``<claw home>/sessions/<workspace id>/<key>.jsonl``, next to the config).

Nanobot's workspace is its home, not the task's folder: on start it writes persona and memory
files there (AGENTS.md, SOUL.md, USER.md, memory/, prompts/, skills/) and git-inits it, so it is
kept apart from ``/testbed`` by construction; its exec tool takes a ``working_dir`` and the
prompt names the task's folder. Nanobot exits 0 when the model fails and prints an apology, so
the turn is judged from its output and saved session, never from the exit code. Its own usage
figure is the last turn's (``_last_usage`` in the session metadata): a cross-check only.
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from clawmark.claws.base import PLACEHOLDER_KEY, ClawAdapter, ClawContext, ClawError, Stopwatch, TurnResult, Usage
from clawmark.claws.volumes import seeded_volume

if TYPE_CHECKING:
    from clawmark.runtime.execution import ExecResult

IMAGE_NAME = "claw-nanobot"
VENV = "/opt/claws/nanobot"
NANOBOT = f"{VENV}/bin/nanobot"
# What nanobot 0.3.5 saves as the turn's last reply when a model call failed (agent/runner.py),
# and what it may print then.
MODEL_ERROR_PLACEHOLDER = "[Assistant reply unavailable due to model error.]"
MODEL_ERROR_MARKERS = ("Sorry, I encountered an error calling the AI model", "Sorry, I encountered an error.")


class NanobotConfig(ClawAdapter.Config):
    # The protocol profiles' settings (clawmark.claws.profiles), keyed only when set.
    keyed_when_set: ClassVar[frozenset[str]] = frozenset({"context_window_tokens", "web_tools"})
    exec_timeout_s: int = Field(120, ge=1, description="Nanobot's per-command timeout of its exec tool.")
    context_window_tokens: int | None = Field(None, gt=0, description="agents.defaults.contextWindowTokens; "
                                                                      "None = nanobot's own.")
    web_tools: bool = Field(True, description="Nanobot's web search and fetch tools (tools.web.enable).")
    grace_s: float = Field(60.0, ge=0, description="Host deadline beyond the claw's wall-clock budget.")


class NanobotClaw(ClawAdapter):
    name = "nanobot"
    native_step_limit = True
    version = "0.3.5"
    needs_image_layer = IMAGE_NAME
    runs_in_container = True
    Config = NanobotConfig

    def docker_args(self, ctx: ClawContext) -> dict[str, Any]:
        volume = seeded_volume(self.needs_image_layer or IMAGE_NAME, VENV, f"test -x {NANOBOT}")
        return {"network": "gateway", "volumes": {volume: {"bind": VENV, "mode": "ro"}}}

    def post_container_start(self, ctx: ClawContext) -> None:
        home = shlex.quote(ctx.claw_home)
        owner = f" && chown -R {shlex.quote(ctx.exec_user)} {home}" if ctx.exec_user else ""
        probe = ctx.sandbox.exec(f"mkdir -p {home}{owner} && {NANOBOT} --version", timeout_s=120)
        if probe.exit_code != 0 or self.version not in probe.stdout:
            raise ClawError(f"nanobot is not runnable in the container: {(probe.stderr or probe.stdout)[-500:]}")

    def create_agent(self, ctx: ClawContext) -> None:
        ctx.sandbox.write_file(self._config_path(ctx), json.dumps(self._config(ctx), indent=2).encode())

    def _config_path(self, ctx: ClawContext) -> str:
        return f"{ctx.claw_home}/cfg.json"

    def _agent_workspace(self, ctx: ClawContext) -> str:
        return f"{ctx.claw_home}/workspace"

    def _config(self, ctx: ClawContext) -> dict[str, Any]:
        config: Any = self.config
        window = {"contextWindowTokens": config.context_window_tokens} if config.context_window_tokens else {}
        return {
            "providers": {"custom": {"apiKey": ctx.gateway_token or PLACEHOLDER_KEY, "apiBase": ctx.gateway_url}},
            "agents": {"defaults": {"provider": "custom", "model": ctx.model, "workspace": self._agent_workspace(ctx),
                                    "maxToolIterations": ctx.budgets.steps, "timezone": "UTC",
                                    "idleCompactAfterMinutes": 0, **window}},
            "tools": {"exec": {"timeout": config.exec_timeout_s}, **({} if config.web_tools else {"web": {"enable": False}})},
        }

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        clock = Stopwatch()
        task_file = f"{ctx.claw_home}/task-{turn}.txt"
        ctx.sandbox.write_file(task_file, message.encode())
        command = " ".join(shlex.quote(p) for p in [
            NANOBOT, "agent", "-c", self._config_path(ctx), "-w", self._agent_workspace(ctx),
            "--session", ctx.attempt_id, "--no-markdown"]) + f' -m "$(cat {shlex.quote(task_file)})"'
        result = ctx.sandbox.exec(command, timeout_s=self._deadline(ctx), workdir=ctx.claw_home,
                                  env=self._env(ctx), user=ctx.exec_user)
        log = ctx.host_dir / f"nanobot-output-turn{turn}.log"
        ctx.host_dir.mkdir(parents=True, exist_ok=True)
        log.write_text(f"{result.stdout}\n--- stderr ---\n{result.stderr}")
        self._copy_sessions(ctx, ctx.host_dir / "nanobot-sessions")
        return self._result(ctx, result, [str(log)], clock)

    def _deadline(self, ctx: ClawContext) -> float:
        config: Any = self.config
        return ctx.budgets.seconds + config.grace_s

    def _env(self, ctx: ClawContext) -> dict[str, str]:
        return {"HOME": ctx.claw_home, "TERM": "dumb", "NO_COLOR": "1", "COLUMNS": "200",
                "PYTHONDONTWRITEBYTECODE": "1", "TIKTOKEN_CACHE_DIR": f"{VENV}/tiktoken-cache"}

    def _result(self, ctx: ClawContext, result: ExecResult, logs: list[str], clock: Stopwatch) -> TurnResult:
        status, finish, error = turn_status(result.stdout, result.exit_code, result.timed_out, self._last_reply(ctx))
        return TurnResult(
            success=status == "replied", timeout=result.timed_out, exit_code=result.exit_code,
            finish_reason=finish,  # type: ignore[arg-type]
            exit_status=status, log_paths=logs, session_id=ctx.attempt_id, duration_s=clock.elapsed(),
            usage=self.collect_usage(ctx),
            error=None if error is None else f"{error}: {(result.stderr or result.stdout)[-500:]}",
        )

    def _copy_sessions(self, ctx: ClawContext, dest: Path) -> None:
        """The saved sessions, refreshed after every turn (the container may be gone later)."""
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True, exist_ok=True)
        try:
            ctx.sandbox.copy_out_skipping_unsafe(self._sessions_dir(ctx), dest)
        except Exception:  # noqa: BLE001 - no session folder (nanobot died early) is itself the finding
            shutil.rmtree(dest, ignore_errors=True)

    def _sessions_dir(self, ctx: ClawContext) -> str:
        """0.3.5 keeps sessions beside its config (``<home>/sessions/<workspace id>/``); 0.1.5 inside
        its workspace (``<workspace>/sessions/<key>.jsonl``)."""
        if self.version.startswith("0.1."):
            return f"{self._agent_workspace(ctx)}/sessions"
        return f"{ctx.claw_home}/sessions"

    def session_records(self, ctx: ClawContext) -> list[dict[str, Any]]:
        """The JSON lines of this attempt's saved session (metadata line first), [] when none."""
        for path in sorted((ctx.host_dir / "nanobot-sessions").rglob("*.jsonl")):
            records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            if records and records[0].get("key") == ctx.attempt_id:
                return records
        return []

    def _last_reply(self, ctx: ClawContext) -> str:
        replies = [r for r in self.session_records(ctx) if r.get("role") == "assistant"]
        return str(replies[-1].get("content") or "") if replies else ""

    def collect_usage(self, ctx: ClawContext) -> Usage | None:
        """Nanobot records only its last turn's usage (``_last_usage``): a partial cross-check."""
        records = self.session_records(ctx)
        last = (records[0].get("metadata") or {}).get("_last_usage") if records else None
        if not last:
            return None
        return Usage(input_tokens=int(last.get("input_tokens") or 0), output_tokens=int(last.get("output_tokens") or 0),
                     cached_tokens=int(last.get("cache_read_tokens") or 0), calls=int(last.get("request_count") or 0),
                     scope="last_turn")

    def backup_session(self, ctx: ClawContext, dest: Path) -> list[Path]:
        src = ctx.host_dir / "nanobot-sessions"
        if not src.is_dir():
            return []
        target = dest / "nanobot-sessions"
        if target.resolve() != src.resolve():
            shutil.copytree(src, target, dirs_exist_ok=True)
        return sorted(target.rglob("*.jsonl"))  # the sessions (lock and marker files ride along)


def turn_status(stdout: str, exit_code: int | None, timed_out: bool, last_reply: str) -> tuple[str, str, str | None]:
    """(exit_status, finish_reason, error) of one nanobot run, from its output and saved last
    reply: nanobot exits 0 and prints the error or an apology when its model call failed."""
    if timed_out:
        return "host_deadline", "timeout", "nanobot still running at the host deadline"
    if last_reply == MODEL_ERROR_PLACEHOLDER or any(marker in stdout for marker in MODEL_ERROR_MARKERS):
        return "model_error", "error", "nanobot reported a model error"
    if exit_code != 0:
        return f"exit_{exit_code}", "error", f"nanobot exited {exit_code}"
    if not stdout.strip():
        return "no_reply", "empty", "nanobot printed no reply"
    return "replied", "stop", None
