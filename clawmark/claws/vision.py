"""Who looks at an image the reference claw views: the executor model itself (the image goes
into the conversation), or — when it cannot see — the task's ``image_model``, called through the
gateway, whose description becomes the tool's observation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from clawmark.claws.base import ClawContext
from clawmark.gateway.http_chat import chat_completion, first_message
from clawmark.gateway.errors import ModelError

Vision = Literal["auto", "executor", "image_model"]

DESCRIBE_PROMPT = ("Describe this image for someone who cannot see it: every visible text, number, label, "
                   "axis, legend and colour, and what the image shows overall.")


def executor_sees(model: str, setting: Vision, image_model: str | None) -> bool:
    """`auto`: the executor sees unless the price table declares it blind and a fallback exists."""
    if setting != "auto" or not image_model:
        return setting != "image_model" or not image_model
    try:
        from litellm.utils import is_vision_explicitly_disabled  # heavy: loaded on the first real model call
    except ImportError:  # an older litellm: trust the executor
        return True
    try:
        return not is_vision_explicitly_disabled(model)
    except Exception:  # noqa: BLE001 - an unknown model is not declared blind
        return True


def describer(ctx: ClawContext, timeout_s: float) -> Callable[[dict[str, Any]], str]:
    """One call to the image model per viewed image; a failed call is an observation."""
    url = ctx.image_gateway_url or ctx.host_gateway_url or ctx.gateway_url

    def describe(part: dict[str, Any]) -> str:
        content = [{"type": "text", "text": DESCRIBE_PROMPT}, part]
        try:
            reply = chat_completion(url, str(ctx.image_model), [{"role": "user", "content": content}],
                                    timeout_s=timeout_s, token=ctx.gateway_token, temperature=0.0)
            return str(first_message(reply).get("content") or "(the vision model returned no text)")
        except ModelError as exc:
            return f"error: the vision model failed ({exc.kind}: {exc})"

    return describe


def images_message(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The user message that shows the executor the images its last tool calls asked to view."""
    text = {"type": "text", "text": f"The {len(parts)} image(s) you asked to view:"}
    return {"role": "user", "content": [text, *parts]}
