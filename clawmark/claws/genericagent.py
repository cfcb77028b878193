"""``genericagent``: the real PyPI package ``genericagent`` 1.0.7 running INSIDE the task container.

The image layer ``images/claw-genericagent`` holds a venv at ``/opt/claws/genericagent``,
mounted read-only (:mod:`clawmark.claws.volumes`). GenericAgent keeps its memory and task
folders inside its own package directory, so ``post_container_start`` copies the package into
the claw home and the claw runs that copy (``PYTHONPATH``), never touching the task's folder.

Its headless entry point (``genericagent/agentmain.py``) is ``python -m genericagent.agentmain
--task ID --llm_no 0``: it reads ``temp/ID/input.txt``, writes the round's reply to
``temp/ID/output.txt`` ending with the marker ``[ROUND END]``, then waits for
``temp/ID/reply.txt``; a reply starts the next round in the same process (same conversation),
whose output is ``output1.txt``, ``output2.txt``... Its loop in 1.0.7 dies on the second
follow-up (the round counter turns from ``''`` into an int, and ``int.isdigit`` raises) and gives
up after 120 s without output or 300 s without a reply, so the adapter runs the same file
protocol on GenericAgent's own agent class (:mod:`clawmark.claws.genericagent_rounds`, copied
into the claw home). Turn 0 starts that process in the background; a follow-up writes
``reply.txt``; every turn waits for its round's marker. A follow-up sent after ``reply_wait_s``
finds the process gone and is an error (its history went with it). The model is an
OpenAI-compatible ``native_oai_config`` (native tool calls) in ``~/.genericagent/mykey.json``.
A failed model call becomes the round's reply text (``Error: HTTP 401 ...``), so the verdict is
read from the output; the gateway ledger says the rest.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from clawmark.claws.base import PLACEHOLDER_KEY, ClawAdapter, ClawContext, ClawError, Stopwatch, TurnResult
from clawmark.claws.volumes import seeded_volume

if TYPE_CHECKING:
    from clawmark.runtime.execution import ExecResult

IMAGE_NAME = "claw-genericagent"
VENV = "/opt/claws/genericagent"
PYTHON = f"{VENV}/bin/python"
ROUND_END = "[ROUND END]"
TASK_ID = "clawmark"
ROUNDS_SCRIPT = Path(__file__).with_name("genericagent_rounds.py")
MODEL_ERROR = re.compile(r"Error: (HTTP \d{3}|Timeout|ConnectionError|ReadTimeout)")


class GenericAgentConfig(ClawAdapter.Config):
    grace_s: float = Field(60.0, ge=0, description="Host deadline beyond the claw's wall-clock budget.")
    read_timeout_s: int = Field(300, ge=5, description="GenericAgent's read timeout of one model call.")
    reply_wait_s: float = Field(3600.0, gt=0, description="How long the process waits for a follow-up "
                                "(the judging between closed-loop turns); then it exits.")


class GenericAgentClaw(ClawAdapter):
    name = "genericagent"
    version = "1.0.7"
    needs_image_layer = IMAGE_NAME
    runs_in_container = True
    Config = GenericAgentConfig

    def docker_args(self, ctx: ClawContext) -> dict[str, Any]:
        volume = seeded_volume(IMAGE_NAME, VENV, f"test -x {PYTHON}")
        return {"network": "gateway", "volumes": {volume: {"bind": VENV, "mode": "ro"}}}

    def _pkg(self, ctx: ClawContext) -> str:
        return f"{ctx.claw_home}/pkg"

    def _rounds_script(self, ctx: ClawContext) -> str:
        return f"{ctx.claw_home}/{ROUNDS_SCRIPT.name}"

    def _task_dir(self, ctx: ClawContext) -> str:
        return f"{self._pkg(ctx)}/genericagent/temp/{TASK_ID}"

    def post_container_start(self, ctx: ClawContext) -> None:
        home, pkg = shlex.quote(ctx.claw_home), shlex.quote(self._pkg(ctx))
        owner = f" && chown -R {shlex.quote(ctx.exec_user)} {home}" if ctx.exec_user else ""
        script = (f"mkdir -p {pkg} {home}/.genericagent && cp -r {VENV}/lib/python3*/site-packages/genericagent {pkg}/"
                  f" && mkdir -p {shlex.quote(self._task_dir(ctx))}{owner}")
        probe = ctx.sandbox.exec(script, timeout_s=120)
        if probe.exit_code != 0:
            raise ClawError(f"genericagent could not be set up in the container: {(probe.stderr or probe.stdout)[-500:]}")
        ctx.sandbox.write_file(self._rounds_script(ctx), ROUNDS_SCRIPT.read_bytes())

    def create_agent(self, ctx: ClawContext) -> None:
        config: Any = self.config
        keys = {"proxy": "", "native_oai_config": {
            "apikey": ctx.gateway_token or PLACEHOLDER_KEY, "apibase": ctx.gateway_url, "model": ctx.model,
            "api_mode": "chat_completions", "max_retries": 2, "read_timeout": config.read_timeout_s}}
        ctx.sandbox.write_file(f"{ctx.claw_home}/.genericagent/mykey.json", json.dumps(keys, indent=2).encode())

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        clock = Stopwatch()
        task_dir = self._task_dir(ctx)
        output = f"{task_dir}/output{turn or ''}.txt"
        if turn == 0:
            ctx.sandbox.write_file(f"{task_dir}/input.txt", message.encode())
            start = self._start_command(ctx)
        else:
            ctx.sandbox.write_file(f"{task_dir}/reply.tmp", message.encode())
            start = f"test -e {task_dir}/pid && kill -0 $(cat {task_dir}/pid) && mv {task_dir}/reply.tmp {task_dir}/reply.txt"
        result = ctx.sandbox.exec(f"{start} && {self._wait_command(task_dir, output)}", timeout_s=self._deadline(ctx),
                                  workdir=ctx.workspace, env=self._env(ctx), user=ctx.exec_user)
        text, log = self._read(ctx, output), self._read(ctx, f"{ctx.claw_home}/agentmain.log")
        logs = self._save_logs(ctx, result, turn, text, log)
        status, finish, error = turn_status(text, result.exit_code, result.timed_out, turn)
        return TurnResult(success=status == "replied", timeout=result.timed_out, exit_code=result.exit_code,
                          finish_reason=finish,  # type: ignore[arg-type]
                          exit_status=status, log_paths=logs, session_id=TASK_ID, duration_s=clock.elapsed(),
                          error=None if error is None else f"{error}: {(text or log)[-500:]}")

    def _start_command(self, ctx: ClawContext) -> str:
        config: Any = self.config
        task_dir = self._task_dir(ctx)
        # the last argument is the step limit: GenericAgent's own 40 calls per round gives way to budgets.steps
        run = (f"{PYTHON} {self._rounds_script(ctx)} {shlex.quote(task_dir)} {config.reply_wait_s:g} 0 "
               f"{ctx.budgets.steps}")
        return f"(nohup {run} > {ctx.claw_home}/agentmain.log 2>&1 & echo $! > {task_dir}/pid)"

    def _wait_command(self, task_dir: str, output: str) -> str:
        """Wait for the round's marker; fail at once when the process is gone without it."""
        return (f"while ! grep -qF {shlex.quote(ROUND_END)} {output} 2>/dev/null; do "
                f"kill -0 $(cat {task_dir}/pid) 2>/dev/null || exit 3; sleep 0.5; done")

    def _deadline(self, ctx: ClawContext) -> float:
        config: Any = self.config
        return ctx.budgets.seconds + config.grace_s

    def _env(self, ctx: ClawContext) -> dict[str, str]:
        return {"HOME": ctx.claw_home, "PYTHONPATH": self._pkg(ctx), "PYTHONDONTWRITEBYTECODE": "1",
                "PYTHONUNBUFFERED": "1", "TERM": "dumb", "NO_COLOR": "1"}

    def _read(self, ctx: ClawContext, path: str) -> str:
        try:
            return ctx.sandbox.read_file(path).decode("utf-8", errors="replace")
        except Exception:  # noqa: BLE001 - no output is itself the finding
            return ""

    def _save_logs(self, ctx: ClawContext, result: ExecResult, turn: int, text: str, log: str) -> list[str]:
        ctx.host_dir.mkdir(parents=True, exist_ok=True)
        out = ctx.host_dir / f"genericagent-output-turn{turn}.txt"
        out.write_text(f"{text}\n--- agentmain log ---\n{log[-20000:]}\n--- wait ---\n{result.stdout}{result.stderr}")
        return [str(out)]

    def backup_session(self, ctx: ClawContext, dest: Path) -> list[Path]:
        """The task folder (input, every round's output) and GenericAgent's memory files."""
        target = dest / "genericagent-session"
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True, exist_ok=True)
        for folder in (self._task_dir(ctx), f"{self._pkg(ctx)}/genericagent/memory"):
            try:
                ctx.sandbox.copy_out_skipping_unsafe(folder, target)
            except Exception:  # noqa: BLE001 - a missing folder leaves the rest of the backup
                continue
        return sorted(p for p in target.rglob("*.txt") if p.stat().st_size > 0)

    def delete_agent(self, ctx: ClawContext) -> None:
        """The process waits reply_wait_s for a follow-up; end it with the attempt."""
        task_dir = self._task_dir(ctx)
        ctx.sandbox.exec(f"test -e {task_dir}/pid && kill $(cat {task_dir}/pid) 2>/dev/null; true", timeout_s=30)


def turn_status(text: str, exit_code: int | None, timed_out: bool, turn: int) -> tuple[str, str, str | None]:
    """(exit_status, finish_reason, error) of one round, from its output file."""
    if timed_out:
        return "host_deadline", "timeout", "genericagent still running at the host deadline"
    if ROUND_END not in text:
        gone = "genericagent exited before the round ended" if turn == 0 else \
            "genericagent was gone at the follow-up (it waits reply_wait_s for one)"
        return f"exit_{exit_code}", "error", gone
    if MODEL_ERROR.search(text):
        return "model_error", "error", "genericagent reported a model error"
    return "replied", "stop", None
