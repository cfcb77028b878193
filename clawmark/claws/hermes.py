"""``hermes``: the real PyPI package ``hermes-agent`` 0.19.0 running INSIDE the task container.

The image layer ``images/claw-hermes`` holds a venv at ``/opt/claws/hermes``, mounted read-only
like mini-swe-agent's (:mod:`clawmark.claws.volumes`). Hermes keeps everything it owns (config,
SQLite session store, memories, logs) in ``HERMES_HOME``, which is put in the claw home, apart
from the task's folder; its terminal tool starts in the task's folder (``TERMINAL_CWD``).

Turn 0 is ``hermes -z <msg> --usage-file u0.json --yolo`` (one-shot: prints only the final reply,
and the usage file, written even on failure, names the new session). A follow-up turn is
``hermes chat -Q -q <msg> --resume <session> --yolo``: ``-z --resume`` would silently start a
new session. Hermes exits 0 on some model failures, so the verdict comes from its output and
usage file too. Its own usage (``collect_usage``) is the session's totals from ``hermes sessions
export``, a cross-check of the ledger only.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import yaml
from pydantic import Field

from clawmark.claws.base import PLACEHOLDER_KEY, ClawAdapter, ClawContext, ClawError, Stopwatch, TurnResult, Usage
from clawmark.claws.volumes import seeded_volume

if TYPE_CHECKING:
    from clawmark.runtime.execution import ExecResult

IMAGE_NAME = "claw-hermes"
VENV = "/opt/claws/hermes"
HERMES = f"{VENV}/bin/hermes"
EXPORT = "session-export.jsonl"
MESSAGES = "hermes-messages.json"


class HermesConfig(ClawAdapter.Config):
    # The protocol profiles' settings (clawmark.claws.profiles), keyed only when set.
    keyed_when_set: ClassVar[frozenset[str]] = frozenset({"toolsets", "reasoning_effort", "compression",
                                                          "terminal_timeout_s"})
    grace_s: float = Field(60.0, ge=0, description="Host deadline beyond the claw's wall-clock budget.")
    toolsets: list[str] = Field(default_factory=list, description="Toolsets given to Hermes (-t a,b); [] = all.")
    reasoning_effort: str | None = Field(None, description="agent.reasoning_effort; None = Hermes' own.")
    compression: bool | None = Field(None, description="compression.enabled; None = Hermes' own.")
    terminal_timeout_s: int | None = Field(None, ge=1, description="terminal.timeout; None = Hermes' own.")
    context_length: int = Field(128_000, gt=0, description="The model's context window; given, so Hermes "
                                                           "does not look it up on a catalog host.")


class HermesClaw(ClawAdapter):
    name = "hermes"
    native_step_limit = True
    version = "0.19.0"
    needs_image_layer = IMAGE_NAME
    runs_in_container = True
    Config = HermesConfig

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__(config)
        self.session_id: str | None = None

    def docker_args(self, ctx: ClawContext) -> dict[str, Any]:
        volume = seeded_volume(IMAGE_NAME, VENV, f"test -x {HERMES}")
        return {"network": "gateway", "volumes": {volume: {"bind": VENV, "mode": "ro"}}}

    def post_container_start(self, ctx: ClawContext) -> None:
        home = shlex.quote(self._home(ctx))
        owner = f" && chown -R {shlex.quote(ctx.exec_user)} {shlex.quote(ctx.claw_home)}" if ctx.exec_user else ""
        probe = ctx.sandbox.exec(f"mkdir -p {home}{owner} && {HERMES} --version", timeout_s=120)
        if probe.exit_code != 0:
            raise ClawError(f"hermes is not runnable in the container: {(probe.stderr or probe.stdout)[-500:]}")

    def _home(self, ctx: ClawContext) -> str:
        return f"{ctx.claw_home}/hermes"

    def create_agent(self, ctx: ClawContext) -> None:
        self.session_id = None
        settings: Any = self.config
        config = {
            "model": {"default": ctx.model, "provider": "custom", "base_url": ctx.gateway_url,
                      "api_key": ctx.gateway_token or PLACEHOLDER_KEY, "context_length": settings.context_length},
            "agent": {"max_turns": ctx.budgets.steps, **_set(reasoning_effort=settings.reasoning_effort)},
            "terminal": {"backend": "local", "cwd": ctx.workspace, **_set(timeout=settings.terminal_timeout_s)},
            **({} if settings.compression is None else {"compression": {"enabled": settings.compression}}),
            "security": {"allow_lazy_installs": False},
        }
        ctx.sandbox.write_file(f"{self._home(ctx)}/config.yaml", yaml.safe_dump(config, sort_keys=False).encode())

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        clock = Stopwatch()
        task_file = f"{ctx.claw_home}/task-{turn}.txt"
        ctx.sandbox.write_file(task_file, message.encode())
        result = ctx.sandbox.exec(self.command(ctx, task_file, turn), timeout_s=self._deadline(ctx),
                                  workdir=ctx.workspace,
                                  env=self._env(ctx), user=ctx.exec_user)
        logs = self._save_logs(ctx, result, turn)
        return self._result(ctx, result, logs, clock, turn)

    def command(self, ctx: ClawContext, task_file: str, turn: int) -> str:
        """Turn 0 runs one-shot, a follow-up resumes its session; both with the configured toolsets."""
        settings: Any = self.config
        quoted = f'"$(cat {shlex.quote(task_file)})"' + (f" -t {shlex.quote(','.join(settings.toolsets))}"
                                                           if settings.toolsets else "")
        if self.session_id is None:
            return f"{HERMES} -z {quoted} --usage-file {shlex.quote(self._usage_file(ctx, turn))} --yolo"
        return f"{HERMES} chat -Q -q {quoted} --resume {shlex.quote(self.session_id)} --yolo"

    def _usage_file(self, ctx: ClawContext, turn: int) -> str:
        return f"{ctx.claw_home}/usage-turn{turn}.json"

    def _deadline(self, ctx: ClawContext) -> float:
        config: Any = self.config
        return ctx.budgets.seconds + config.grace_s

    def _env(self, ctx: ClawContext) -> dict[str, str]:
        return {"HERMES_HOME": self._home(ctx), "HOME": ctx.claw_home, "TERMINAL_CWD": ctx.workspace,
                "TERM": "dumb", "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1", "HERMES_ACCEPT_HOOKS": "1",
                "HERMES_DISABLE_LAZY_INSTALLS": "1"}

    def _save_logs(self, ctx: ClawContext, result: ExecResult, turn: int) -> list[str]:
        ctx.host_dir.mkdir(parents=True, exist_ok=True)
        out = ctx.host_dir / f"hermes-output-turn{turn}.log"
        out.write_text(f"{result.stdout}\n--- stderr ---\n{result.stderr}")
        paths = [str(out)]
        usage = self._read_json(ctx, self._usage_file(ctx, turn))
        if usage is not None:
            (ctx.host_dir / f"hermes-usage-turn{turn}.json").write_text(json.dumps(usage, indent=1))
            paths.append(str(ctx.host_dir / f"hermes-usage-turn{turn}.json"))
            self.session_id = self.session_id or usage.get("session_id")
        return paths

    def _read_json(self, ctx: ClawContext, path: str) -> dict[str, Any] | None:
        try:
            return json.loads(ctx.sandbox.read_file(path))
        except Exception:  # noqa: BLE001 - a missing report is itself the finding
            return None

    def _result(self, ctx: ClawContext, result: ExecResult, logs: list[str], clock: Stopwatch,
                turn: int) -> TurnResult:
        usage_path = ctx.host_dir / f"hermes-usage-turn{turn}.json"
        report = json.loads(usage_path.read_text()) if turn == 0 and usage_path.exists() else {}
        status, finish, error = turn_status(result.stdout, result.exit_code, result.timed_out, report)
        return TurnResult(
            success=status == "replied", timeout=result.timed_out, exit_code=result.exit_code,
            finish_reason=finish,  # type: ignore[arg-type]
            exit_status=status, log_paths=logs, session_id=self.session_id, duration_s=clock.elapsed(),
            error=None if error is None else f"{error}: {(result.stderr or result.stdout)[-500:]}",
        )

    def backup_session(self, ctx: ClawContext, dest: Path) -> list[Path]:
        """``hermes sessions export`` of this attempt's session (messages and its usage totals),
        and its messages alone as ``{"messages": [...]}``."""
        if self.session_id is None:
            return []
        target = f"{ctx.claw_home}/{EXPORT}"
        command = f"{HERMES} sessions export {shlex.quote(target)} --session-id {shlex.quote(self.session_id)}"
        result = ctx.sandbox.exec(command, timeout_s=120, workdir=ctx.claw_home, env=self._env(ctx),
                                  user=ctx.exec_user)
        if result.exit_code != 0:
            return []
        dest.mkdir(parents=True, exist_ok=True)
        (dest / EXPORT).write_bytes(ctx.sandbox.read_file(target))
        (dest / MESSAGES).write_text(json.dumps({"messages": self._messages(dest / EXPORT)}, indent=1))
        return [dest / EXPORT, dest / MESSAGES]

    def _messages(self, export: Path) -> list[dict[str, Any]]:
        """The session's messages in OpenAI shape (what a reader of the transcript expects)."""
        sessions = [json.loads(line) for line in export.read_text().splitlines() if line.strip()]
        keep = ("role", "content", "tool_calls", "tool_call_id")
        return [{key: m[key] for key in keep if m.get(key) is not None}
                for session in sessions if session.get("id") == self.session_id for m in session.get("messages") or []]

    def collect_usage(self, ctx: ClawContext) -> Usage | None:
        """The session's own totals from the export (every turn of the attempt)."""
        path = ctx.host_dir / EXPORT
        if not path.is_file() and not self.backup_session(ctx, ctx.host_dir):
            return None
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        session = next((s for s in lines if s.get("id") == self.session_id), None)
        if session is None:
            return None
        return Usage(input_tokens=int(session.get("input_tokens") or 0),
                     output_tokens=int(session.get("output_tokens") or 0),
                     cached_tokens=int(session.get("cache_read_tokens") or 0),
                     cost_usd=float(session.get("estimated_cost_usd") or 0.0),
                     calls=int(session.get("api_call_count") or 0))


def turn_status(stdout: str, exit_code: int | None, timed_out: bool,
                report: dict[str, Any]) -> tuple[str, str, str | None]:
    """(exit_status, finish_reason, error) of one hermes run, from its exit, output and usage
    report (``failed`` is set there even when hermes exits 0)."""
    if timed_out:
        return "host_deadline", "timeout", "hermes still running at the host deadline"
    if report.get("failed"):
        return "model_error", "error", f"hermes reported a failed run ({report.get('failure') or 'no detail'})"
    if exit_code != 0:
        return f"exit_{exit_code}", "error", f"hermes exited {exit_code}"
    if not stdout.strip():
        return "no_reply", "empty", "hermes printed no reply"
    return "replied", "stop", None


def _set(**values: object) -> dict[str, object]:
    """The keys whose value is set (a None setting leaves Hermes' own default)."""
    return {key: value for key, value in values.items() if value is not None}
