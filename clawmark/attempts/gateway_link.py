"""The attempt's side of the gateway: pin the models, cost caps and ledger file of one attempt (one
token and one cap per role, for both tracks), and the URLs a claw calls it by (from the host, or
from a container on the gateway network)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from clawmark.attempts.base import AttemptConfig
from clawmark.attempts.seams import AttemptGateway
from clawmark.claws import ClawAdapter
from clawmark.gateway.prices import Price, default_prices, require_price
from clawmark.runtime.network import gateway_network

HOST_LOOPBACK = "127.0.0.1"
VISION_SUFFIX = "-vision"  # the claw's vision route: a sibling of the executor's, same token, cap and ledger


def register(gateway: AttemptGateway, attempt_id: str, models: dict[str, str], caps: dict[str, float], ledger: Path,
             *, params: dict[str, object] | None = None, fallback_price: Price | None = None,
             image_model: str | None = None, claw: ClawAdapter | None = None) -> dict[str, str]:
    """Pin each role's model and cost cap (`models`, `caps`: role -> ...; the claw can change
    neither) and return each role's bearer token. Only the executor's token may go where the
    claw runs: it opens the executor's route (and the vision route, when `image_model` is set)
    and nothing else; a judge's token stays in this process or its own judge container (agent
    mode), so the claw cannot call, read or bill its judge, and the executor's spend cannot eat
    the judge's cap. The executor's requests offer the model only the tools `claw`'s filter keeps."""
    route = gateway.register_attempt(attempt_id, model=models["executor"], budget_usd=caps["executor"],
                                     role_budgets=dict(caps), role_models=models, ledger_path=ledger, params=params,
                                     fallback_price=fallback_price, require_token=True,
                                     executor_tools=claw.gateway_tool_filter() if claw is not None else None)
    if image_model:
        gateway.register_sibling(attempt_id + VISION_SUFFIX, route, model=image_model)
    return dict(route.tokens)


def executor_cap(config: AttemptConfig, calls_model: bool = True) -> float:
    """The executor's own cost cap. A claw that never calls a model (oracle, nop) gets a zero
    cap: no call can pass, so its model needs no price."""
    return config.budgets.cost_usd if calls_model else 0.0


def uses_fallback_price(model: str, config: AttemptConfig, claw: ClawAdapter) -> bool:
    """Whether the attempt's fallback price will price `model`; raises UnpricedModel when the
    model has no price and no fallback is set, as its calls would cost NaN and never reach the
    attempt's cap. A sweep calls this for every claw × model before its first cell."""
    if not claw.calls_model:
        return False
    cap = f"attempt cost cap of ${config.budgets.cost_usd:g}"
    return require_price(model, default_prices(), config.fallback_price, cap)


def priced_by_fallback(models: Iterable[str], fallback: Price | None) -> bool:
    """Whether the fallback price will price one of an attempt's `models` (its row says so). It
    never raises: the gateway refuses a capped role's unpriced model when the attempt registers."""
    return fallback is not None and any(default_prices().own_price(model) is None for model in models)


def unregister(gateway: AttemptGateway, attempt_id: str) -> None:
    gateway.unregister_attempt(attempt_id)
    gateway.unregister_attempt(attempt_id + VISION_SUFFIX)  # nothing when it has none


def close(gateway: AttemptGateway, attempt_id: str, drain_s: float) -> None:
    """Refuse the attempt's new calls and wait (up to `drain_s`, then cancel) for its running
    ones to write their ledger lines: after this the attempt's ledger can be summed."""
    gateway.close_attempt(attempt_id, drain_s=drain_s)


def host_url(gateway: AttemptGateway, attempt_id: str, role: str) -> str:
    return gateway.base_url(attempt_id, role, host=HOST_LOOPBACK)


def container_url(gateway: AttemptGateway, attempt_id: str, role: str) -> str:
    """URL from inside a container on the internal gateway network (the host side of it)."""
    _, host_ip = gateway_network()
    return gateway.base_url(attempt_id, role, host=host_ip)
