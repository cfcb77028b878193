"""``mini-swe-agent``: the real PyPI package (2.4.6) running INSIDE the instance container.

The claw image ``images/claw-mini-swe-agent`` builds a venv at ``/opt/claws/mini``. Instance
images derive from other language images, so instead of one derived image per instance the
venv is shared as a named Docker volume seeded from the claw image (Docker copies an image's
content into an empty named volume on first mount) and mounted read-only into every instance
container. The venv runs on the base image's ``/usr/bin/python3``, common to all our images.

``mini`` executes its bash actions locally in ``/testbed`` and calls the clawmark gateway
(``openai/<model>`` through litellm with ``api_base``); the container is on the gateway's
internal network, so the gateway is all it can reach. Its trajectory is copied out after the
run; its own cost figures are ignored (``MSWEA_COST_TRACKING=ignore_errors``): the ledger is
the truth. mini has no CLI resume, so a follow-up turn runs :mod:`clawmark.claws.mini_continue`
(copied into the claw home, run with mini's venv): it reloads the saved trajectory, appends the
user message and keeps stepping with mini's own loop.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from clawmark.claws.base import ClawAdapter, ClawContext, ClawError, Stopwatch, TurnResult, Usage
from clawmark.claws.volumes import seeded_volume

if TYPE_CHECKING:
    from clawmark.runtime.execution import ExecResult

IMAGE_NAME = "claw-mini-swe-agent"
CONTINUE_SCRIPT = Path(__file__).with_name("mini_continue.py")
VENV = "/opt/claws/mini"
OVERRIDES = f"{VENV}/clawmark-mini.yaml"
_EXITS: dict[str, tuple[str, bool]] = {  # mini exit_status → (finish_reason, success)
    "Submitted": ("stop", True),
    "LimitsExceeded": ("limit", False),
    "TimeExceeded": ("timeout", False),
}


class MiniConfig(ClawAdapter.Config):
    command_timeout_s: int = Field(120, description="mini's per-command timeout inside /testbed.")
    grace_s: float = Field(60.0, description="Host deadline beyond mini's own wall-time limit.")
    model_retry_attempts: int = Field(10, ge=1, description="mini's tries per model query "
                                      "(MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT; it waits 4-60 s between).")


def mini_volume() -> str:
    """Name of the named volume holding the mini venv, seeded from the claw image once (seeding
    is serialised by a host lock, and a failed seed is removed: no half-copied venv is mounted)."""
    return seeded_volume(IMAGE_NAME, VENV, f"test -x {VENV}/bin/mini")


class MiniSweAgentClaw(ClawAdapter):
    name = "mini-swe-agent"
    native_step_limit = True
    version = "2.4.6"
    needs_image_layer = IMAGE_NAME
    runs_in_container = True
    Config = MiniConfig

    def docker_args(self, ctx: ClawContext) -> dict[str, Any]:
        return {
            "network": "gateway",
            "volumes": {mini_volume(): {"bind": VENV, "mode": "ro"}},
        }

    def post_container_start(self, ctx: ClawContext) -> None:
        probe = ctx.sandbox.exec(f"mkdir -p {ctx.claw_home} && {VENV}/bin/mini --help >/dev/null",
                                 timeout_s=120)
        if probe.exit_code != 0:
            raise ClawError(f"mini-swe-agent is not runnable in the container: {probe.stderr[-500:]}")

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        clock = Stopwatch()
        task_file = f"{ctx.claw_home}/task-{turn}.txt"
        ctx.sandbox.write_file(task_file, message.encode())
        command = self._first_turn(ctx, task_file) if turn == 0 else self._follow_up(ctx, task_file)
        # mini looks for `-c mini.yaml` in its cwd before its builtin configs: run it from the claw
        # home, so a repository holding a mini.yaml cannot swap the protocol's config.
        result = ctx.sandbox.exec(command, timeout_s=self._deadline(ctx), workdir=ctx.claw_home,
                                  env=self._env(ctx))
        logs = self._save_logs(ctx, result, turn)
        return self._result(ctx, result, logs, clock)

    def _deadline(self, ctx: ClawContext) -> float:
        config: Any = self.config
        return ctx.budgets.seconds + config.grace_s

    def _specs(self, ctx: ClawContext) -> list[str]:
        config: Any = self.config
        return [
            "mini.yaml",
            OVERRIDES,
            f"model.model_kwargs.api_base={ctx.gateway_url}",
            f"agent.step_limit={ctx.budgets.steps}",
            f"agent.wall_time_limit_seconds={int(ctx.budgets.seconds)}",
            f"environment.cwd={ctx.workspace}",
            f"environment.timeout={config.command_timeout_s}",
        ]

    def _first_turn(self, ctx: ClawContext, task_file: str) -> str:
        parts = [f"{VENV}/bin/mini", "-y", "--exit-immediately", "-m", f"openai/{ctx.model}"]
        for spec in self._specs(ctx):
            parts += ["-c", spec]
        parts += ["-o", f"{ctx.claw_home}/traj.json"]
        return _join(parts) + f' -t "$(cat {shlex.quote(task_file)})"'

    def _follow_up(self, ctx: ClawContext, task_file: str) -> str:
        """mini has no CLI resume: our wrapper reloads traj.json and keeps stepping."""
        script = f"{ctx.claw_home}/mini_continue.py"
        ctx.sandbox.write_file(script, CONTINUE_SCRIPT.read_bytes())
        return _join([f"{VENV}/bin/python", script, f"{ctx.claw_home}/traj.json", task_file,
                      f"openai/{ctx.model}", *self._specs(ctx)])

    def _env(self, ctx: ClawContext) -> dict[str, str]:
        return {
            "MSWEA_CONFIGURED": "1",
            "MSWEA_COST_TRACKING": "ignore_errors",
            "MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT": str(self.config.model_retry_attempts),  # type: ignore[attr-defined]
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "OPENAI_API_KEY": ctx.gateway_token or "clawmark",  # the attempt's gateway token, never a provider key
            "HOME": ctx.claw_home,
            "TERM": "dumb",
            "NO_COLOR": "1",
        }

    def _save_logs(self, ctx: ClawContext, result: ExecResult, turn: int) -> list[str]:
        ctx.host_dir.mkdir(parents=True, exist_ok=True)
        out = ctx.host_dir / f"mini-output-turn{turn}.log"
        out.write_text(f"{result.stdout}\n--- stderr ---\n{result.stderr}")
        paths = [str(out)]
        traj = self._trajectory(ctx)
        if traj is not None:
            (ctx.host_dir / "traj.json").write_text(json.dumps(traj, indent=1))
            paths.append(str(ctx.host_dir / "traj.json"))
        return paths

    def _trajectory(self, ctx: ClawContext) -> dict[str, Any] | None:
        try:
            return json.loads(ctx.sandbox.read_file(f"{ctx.claw_home}/traj.json"))
        except Exception:  # noqa: BLE001 - no trajectory is itself the finding
            return None

    def _result(self, ctx: ClawContext, result: ExecResult, logs: list[str], clock: Stopwatch) -> TurnResult:
        traj_path = ctx.host_dir / "traj.json"
        traj = json.loads(traj_path.read_text()) if traj_path.exists() else {}
        status = str(traj.get("info", {}).get("exit_status", "")) or "no_trajectory"
        finish, ok = _EXITS.get(status, ("error", False))
        if result.timed_out:
            finish, ok, status = "timeout", False, "host_deadline"
        return TurnResult(
            success=ok,
            timeout=finish == "timeout",
            exit_code=result.exit_code,
            finish_reason=finish,  # type: ignore[arg-type]
            exit_status=status,
            log_paths=logs,
            session_id=ctx.attempt_id,
            duration_s=clock.elapsed(),
            usage=trajectory_usage(traj),
            error=None if ok else f"mini exit {status}: {result.stderr[-500:]}",
        )

    def collect_usage(self, ctx: ClawContext) -> Usage | None:
        traj_path = ctx.host_dir / "traj.json"
        return trajectory_usage(json.loads(traj_path.read_text())) if traj_path.exists() else None

    def backup_session(self, ctx: ClawContext, dest: Path) -> list[Path]:
        src = ctx.host_dir / "traj.json"
        if not src.exists():
            return []
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "mini-traj.json").write_bytes(src.read_bytes())
        return [dest / "mini-traj.json"]


def _join(parts: list[str]) -> str:
    return " ".join(shlex.quote(part) for part in parts)


def trajectory_usage(traj: dict[str, Any]) -> Usage:
    """Sum mini's per-call usage from its trajectory (a cross-check against the ledger)."""
    usage = Usage(cost_usd=float(traj.get("info", {}).get("model_stats", {}).get("instance_cost", 0.0)))
    for message in traj.get("messages", []):
        response = (message.get("extra") or {}).get("response") or {}
        counts = response.get("usage") or {}
        if not counts:
            continue
        usage.calls += 1
        usage.input_tokens += int(counts.get("prompt_tokens") or 0)
        usage.output_tokens += int(counts.get("completion_tokens") or 0)
        details = counts.get("prompt_tokens_details") or {}
        usage.cached_tokens += int(details.get("cached_tokens") or 0)
    return usage
