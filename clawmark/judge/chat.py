"""One model call for a judging role, and the per-task role settings (codex.supervisor / .user_simulator).

`ChatFn` takes OpenAI messages (text or image parts) and returns the reply text. The attempt
runner builds it over the gateway's role URL (`/a/<attempt>/<role>/v1`) with `gateway_chat`;
tests may pass any function. Model errors (rate limit, outage, budget) propagate typed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel

from clawmark.catalog.task import ClosedLoopTask
from clawmark.gateway.http_chat import chat_completion, first_message
from clawmark.judge.evidence import message_text

ChatFn = Callable[[list[dict]], str]
Role = Literal["supervisor", "user_simulator"]


class RoleSettings(BaseModel):
    model: str
    reasoning_effort: str | None = None
    instructions: str | None = None

    def params(self) -> dict[str, Any]:
        return {"reasoning_effort": self.reasoning_effort} if self.reasoning_effort else {}


def role_settings(task: ClosedLoopTask, role: Role, default_model: str) -> RoleSettings:
    """The task's override of `role` on top of the sweep's model (register `model` at the gateway)."""
    override = getattr(task.spec.codex, role)
    if override is None:
        return RoleSettings(model=default_model)
    return RoleSettings(model=override.model or default_model, reasoning_effort=override.reasoning_effort,
                        instructions=override.instructions or override.policy)


def gateway_chat(base_url: str, model: str, token: str = "", timeout_s: float = 600.0, **params: object) -> ChatFn:
    """A ChatFn over the gateway at `base_url` (…/v1); `params` (e.g. reasoning_effort) go in every body."""
    def chat(messages: list[dict]) -> str:
        response = chat_completion(base_url, model, messages, timeout_s=timeout_s, token=token, **params)
        return message_text(first_message(response).get("content"))

    return chat

