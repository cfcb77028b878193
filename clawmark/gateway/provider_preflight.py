"""Before anything is provisioned: does every model of a run have what its provider needs?

The gateway reads provider keys from its own environment (litellm's names, e.g. ANTHROPIC_API_KEY);
a run that lacks one would start containers and only fail at the first call. Scripted models
and calls with an explicit OpenAI-compatible `api_base` need no key here."""

from __future__ import annotations

from collections.abc import Iterable

from clawmark.gateway.cassettes import is_scripted


class MissingProviderKey(RuntimeError):
    """A model's provider key is not in the environment."""


def missing_keys(model: str) -> list[str]:
    if is_scripted(model) or model in ("", "none"):
        return []
    import litellm  # heavy: loaded on the first real model call

    try:
        return list(litellm.validate_environment(model).get("missing_keys") or [])
    except Exception:  # noqa: BLE001 - a model litellm cannot map: its first call will say why
        return []


def require_keys(models: Iterable[str], *, api_base: str | None = None) -> None:
    """Raise MissingProviderKey naming each model and the variables it needs."""
    if api_base:
        return
    lacking = {m: keys for m in sorted(set(models)) if (keys := missing_keys(m))}
    if lacking:
        needs = "; ".join(f"{model} needs {', '.join(keys)}" for model, keys in lacking.items())
        raise MissingProviderKey(f"{needs} in the environment (or a `clawmark model endpoint` block); nothing was started")
