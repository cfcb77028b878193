"""``bare``: the diagnostic baseline of Claw-SWE-Bench (19.1 % vs 73.4 % with a full adapter).

One model call asks for a unified diff; the diff found in the reply is written with ``git
apply`` and nothing more — no tools, no retries, no repair. A reply without a diff, or a diff
that does not apply, leaves the tree untouched and ends as ``empty`` / ``apply_failed``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import Field

from clawmark.claws.base import ClawAdapter, ClawContext, Stopwatch, TurnResult, Usage
from clawmark.gateway.http_chat import chat_completion, first_message
from clawmark.claws.diff_apply import apply_diff_turn
from clawmark.gateway.errors import ModelError

BARE_INSTRUCTIONS = """\
Reply with the fix as ONE unified diff (as produced by `git diff`, paths prefixed a/ and b/,
relative to the repository root) inside a ```diff fenced block. Nothing else is applied."""

_FENCE = re.compile(r"```(?:diff|patch)?[^\n]*\n(.*?)```", re.DOTALL)


def extract_diff(reply: str) -> str | None:
    """The first fenced block that looks like a diff, else a bare diff starting at ``diff --git``
    or ``--- ``; None when the reply holds no diff."""
    for block in _FENCE.findall(reply):
        if re.search(r"^(diff --git|--- )", block, re.MULTILINE):
            return block if block.endswith("\n") else block + "\n"
    match = re.search(r"^(diff --git |--- [^\n]*\n\+\+\+ )", reply, re.MULTILINE)
    if match is None:
        return None
    text = reply[match.start():]
    return text if text.endswith("\n") else text + "\n"


class BareConfig(ClawAdapter.Config):
    temperature: float = Field(0.0, description="Sampling temperature of the single call.")
    call_timeout_s: float = Field(600.0, description="HTTP timeout of the single call.")


class BareClaw(ClawAdapter):
    name = "bare"
    tracks = ("patch",)  # patch track only: it has no way to act on a closed-loop task
    version = "1"
    Config = BareConfig

    def send_task(self, ctx: ClawContext, message: str, turn: int) -> TurnResult:
        clock = Stopwatch()
        try:
            reply = self._ask(ctx, message)
        except ModelError as exc:
            return TurnResult(success=False, finish_reason="error", exit_status="model_error",
                              error=f"{exc.kind}: {exc}", error_kind=exc.kind,
                              duration_s=clock.elapsed())
        log = ctx.host_dir / f"bare-turn{turn}.json"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(json.dumps({"prompt": message, "reply": reply}, indent=1))
        diff = extract_diff(reply)
        if diff is None:
            return TurnResult(success=True, finish_reason="empty", exit_status="no_diff",
                              log_paths=[str(log)], duration_s=clock.elapsed(), usage=Usage(calls=1))
        return apply_diff_turn(ctx, diff, name="bare", clock=clock, log_paths=[str(log)], usage=Usage(calls=1))

    def _ask(self, ctx: ClawContext, message: str) -> str:
        config: Any = self.config
        reply = chat_completion(
            ctx.host_gateway_url or ctx.gateway_url,
            ctx.model,
            [{"role": "user", "content": f"{message}\n{BARE_INSTRUCTIONS}"}],
            timeout_s=config.call_timeout_s,
            token=ctx.gateway_token,
            temperature=config.temperature,
        )
        return str(first_message(reply).get("content") or "")
