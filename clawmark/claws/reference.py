"""``reference``: clawmark's own tool-using loop, run on the host, acting in the sandbox.

Each step: check limits → one model call through the gateway (OpenAI tool calling) → run the
tool calls in the sandbox → append observations. Exits are typed exceptions, as in
mini-swe-agent: ``submitted`` (submit tool), ``finished`` (a reply without tool calls),
``step_limit``, ``time_limit``, ``cost_limit``, ``model_error``. The transcript is saved after
every step in a ``finally:``, so a crash mid-step still leaves everything up to it on disk.
On a scripted model the loop is fully deterministic (no clock or randomness in what is sent).
"""

from __future__ import annotations

import json
import math
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import Field

from clawmark.claws.base import ClawAdapter, ClawContext, Stopwatch, TurnResult, Usage
from clawmark.claws.browser_tool import BROWSER_TOOLS, BrowserToolBox, has_desktop
from clawmark.gateway.http_chat import chat_completion, first_message
from clawmark.claws.tools import TOOLS, SubmitCalled, ToolBox, ToolConfig
from clawmark.claws.vision import Vision, describer, executor_sees, images_message
from clawmark.claws.workstation_tools import CLOSED_LOOP_TOOLS, WorkstationToolBox
from clawmark.gateway.errors import ModelError
from clawmark.gateway.ledger import read_ledger

SYSTEM_PROMPT = """\
You are an autonomous software engineer working in a repository at {workspace}.
Use the tools to inspect the code, change it, and check your change. Work step by step, one or
a few tool calls per reply. When the change is complete, call the submit tool."""

CLOSED_LOOP_PROMPT = """\
You are an autonomous assistant working on a computer for a user. Your workspace is {workspace};
the task's input files are under {workspace}/clawbench/sources/ and skills the user installed
for you are under {skills_dir}/<name>/SKILL.md. Save every deliverable under {workspace}/results/.
Use the tools step by step (bash, read_file, write_file, edit, view_image for pictures). The user
may answer with follow-up requests in this same conversation. When the request is done, reply
with a short summary and no tool call."""


class LoopExit(Exception):
    """Ends the loop with a typed exit status."""

    status = "error"
    finish_reason = "error"


class Submitted(LoopExit):
    status, finish_reason = "submitted", "stop"


class Finished(LoopExit):
    status, finish_reason = "finished", "stop"


class StepLimit(LoopExit):
    status, finish_reason = "step_limit", "limit"


class TimeLimit(LoopExit):
    status, finish_reason = "time_limit", "timeout"


class CostLimit(LoopExit):
    status, finish_reason = "cost_limit", "limit"


class ModelFailed(LoopExit):
    status, finish_reason = "model_error", "error"

    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind = kind


class ReferenceConfig(ToolConfig):
    temperature: float = Field(0.0, description="Sampling temperature sent with every call.")
    call_timeout_s: float = Field(600.0, description="HTTP timeout of one model call.")
    vision: Vision = Field("auto", description="Who sees view_image pictures: the executor, the task's "
                                               "image_model, or auto (image_model only for a blind executor).")


class ReferenceClaw(ClawAdapter):
    name = "reference"
    native_step_limit = True
    version = "1"
    Config = ReferenceConfig

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__(config)
        self.messages: list[dict[str, Any]] = []
        self.steps = 0
        self.usage = Usage(cost_usd=math.nan)  # from the replies' usage blocks (a cross-check)
        self.stop_requested = threading.Event()  # set by stop(), from the runner's thread

    def create_agent(self, ctx: ClawContext) -> None:
        if ctx.track == "closed_loop":
            prompt = CLOSED_LOOP_PROMPT.format(workspace=ctx.workspace, skills_dir=ctx.skills_dir)
        else:
            prompt = SYSTEM_PROMPT.format(workspace=ctx.workspace)
        self.messages = [{"role": "system", "content": prompt}]
        self.steps = 0

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        if not self.messages:
            self.create_agent(ctx)
        self.messages.append({"role": "user", "content": message})
        self.stop_requested.clear()  # a stop ends one turn; a later turn starts afresh
        loop = _Loop(self, ctx, turn)
        return loop.run()

    def stop(self, ctx: ClawContext) -> None:
        self.stop_requested.set()

    def collect_usage(self, ctx: ClawContext) -> Usage | None:
        return self.usage

    def backup_session(self, ctx: ClawContext, dest: Path) -> list[Path]:
        dest.mkdir(parents=True, exist_ok=True)
        path = dest / "reference-messages.json"
        path.write_text(json.dumps(self.messages, indent=1))
        return [path]


class _Loop:
    """One turn of the reference claw (state lives on the claw, so follow-up turns continue)."""

    def __init__(self, claw: ReferenceClaw, ctx: ClawContext, turn: int):
        self.claw, self.ctx, self.turn = claw, ctx, turn
        self.config: ReferenceConfig = claw.config  # type: ignore[assignment]
        self.tools = _toolbox(ctx, self.config)
        self.tool_specs = CLOSED_LOOP_TOOLS if ctx.track == "closed_loop" else TOOLS
        if isinstance(self.tools, BrowserToolBox):  # headed tasks: the desktop image has Chromium
            self.tool_specs = BROWSER_TOOLS
        self.clock = Stopwatch()
        self.turn_steps = 0
        self.transcript = ctx.host_dir / f"transcript-turn{turn}.json"

    def run(self) -> TurnResult:
        exit_: LoopExit
        while True:
            try:
                self.step()
            except LoopExit as done:
                exit_ = done
                break
            finally:
                self.save()
        return self.result(exit_)

    def step(self) -> None:
        self.check_limits()
        self.turn_steps += 1
        self.claw.steps += 1
        try:
            reply = chat_completion(
                self.ctx.host_gateway_url or self.ctx.gateway_url,
                self.ctx.model,
                self.claw.messages,
                tools=self.tool_specs,
                timeout_s=self.config.call_timeout_s,
                token=self.ctx.gateway_token,
                temperature=self.config.temperature,
            )
            message = first_message(reply)
        except ModelError as exc:
            raise ModelFailed(exc.kind, str(exc)) from exc
        _add_usage(self.claw.usage, reply.get("usage") or {})
        self.claw.messages.append(_assistant_entry(message))
        self.act(message.get("tool_calls") or [])

    def act(self, tool_calls: list[dict[str, Any]]) -> None:
        if not tool_calls:
            raise Finished("the model replied without tool calls")
        submitted = False
        for call in tool_calls:
            function = call.get("function") or {}
            try:
                output = self.tools.run(str(function.get("name")), function.get("arguments") or "{}")
            except SubmitCalled:
                submitted, output = True, "submitted"
            self.claw.messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": output})
        if images := getattr(self.tools, "take_images", list)():
            self.claw.messages.append(images_message(images))  # after all tool results, as the API wants
        if submitted:
            raise Submitted("the model called submit")

    def check_limits(self) -> None:
        budgets = self.ctx.budgets
        if self.claw.stop_requested.is_set():
            raise TimeLimit("stopped by the runner at the host deadline")
        if self.turn_steps >= budgets.steps:
            raise StepLimit(f"{budgets.steps} steps used")
        if self.clock.elapsed() >= budgets.seconds:
            raise TimeLimit(f"{budgets.seconds} s used")
        spent = self.spent_usd()
        if spent >= budgets.cost_usd:
            raise CostLimit(f"${spent:.4f} spent of ${budgets.cost_usd}")

    def spent_usd(self) -> float:
        """Spend so far from the gateway ledger (the truth); unpriced calls count as 0 here."""
        if self.ctx.ledger_path is None:
            return 0.0

        # the executor's own calls only: a closed-loop ledger also holds the judges' spend
        costs = (rec.cost_usd for rec in read_ledger(self.ctx.ledger_path) if rec.role == "executor")
        return sum(c for c in costs if not math.isnan(c))

    def save(self) -> None:
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        payload = {"turn": self.turn, "steps": self.turn_steps, "saved_at": time.time(),
                   "messages": self.claw.messages}
        self.transcript.write_text(json.dumps(payload, indent=1))

    def result(self, exit_: LoopExit) -> TurnResult:
        return TurnResult(
            success=isinstance(exit_, (Submitted, Finished)),
            timeout=isinstance(exit_, TimeLimit),
            finish_reason=exit_.finish_reason,  # type: ignore[arg-type]
            exit_status=exit_.status,
            log_paths=[str(self.transcript)],
            session_id=self.ctx.attempt_id,
            duration_s=self.clock.elapsed(),
            usage=Usage(calls=self.turn_steps),
            error=None if isinstance(exit_, (Submitted, Finished)) else str(exit_),
            error_kind=getattr(exit_, "kind", None),
        )


def _toolbox(ctx: ClawContext, config: ReferenceConfig) -> ToolBox:
    """Closed loop: tools act as the executor user, and view_image is there."""
    if ctx.track != "closed_loop":
        return ToolBox(ctx.sandbox, ctx.workspace, config)
    sees = executor_sees(ctx.model, config.vision, ctx.image_model)
    describe = None if sees else describer(ctx, config.call_timeout_s)
    box = BrowserToolBox if has_desktop(ctx.sandbox) else WorkstationToolBox
    return box(ctx.sandbox, ctx.workspace, config, ctx.exec_user, describe)


def _add_usage(total: Usage, usage: dict[str, Any]) -> None:
    total.calls += 1
    total.input_tokens += int(usage.get("prompt_tokens") or 0)
    total.output_tokens += int(usage.get("completion_tokens") or 0)
    total.cached_tokens += int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)


def _assistant_entry(message: dict[str, Any]) -> dict[str, Any]:
    """The assistant message as it goes back to the model (only OpenAI fields)."""
    entry: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
    if message.get("tool_calls"):
        entry["tool_calls"] = [
            {"id": c.get("id", ""), "type": "function", "function": c.get("function", {})}
            for c in message["tool_calls"]
        ]
    return entry
