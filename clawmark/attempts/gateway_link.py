"""The attempt's side of the gateway: pin the model, cost cap and ledger file of one attempt, and
the URLs a claw calls it by (from the host, or from a container on the gateway network)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

HOST_LOOPBACK = "127.0.0.1"


def register(gateway: Any, attempt_id: str, model: str, config: Any, ledger: Path, *, calls_model: bool = True) -> str:
    """The claw cannot pick another model or escape its budget: both are pinned here. Returns the
    attempt's bearer token: the gateway refuses calls to this attempt without it (401/403), so a
    claw holding another attempt's URL cannot spend this one's budget. A claw that never calls a
    model (oracle, nop) gets a zero cap: no call can pass, so its model needs no price."""
    budget = config.budgets.cost_usd if calls_model else 0.0
    route = gateway.register_attempt(attempt_id, model=model, budget_usd=budget,
                                     ledger_path=ledger, params=dict(config.model_params),
                                     fallback_price=config.fallback_price, require_token=True)
    return route.token


def uses_fallback_price(model: str, config: Any, claw: Any) -> bool:
    """Whether the attempt's fallback price will price `model`; raises UnpricedModel when the
    model has no price and no fallback is set, as its calls would cost NaN and never reach the
    attempt's cap. A sweep calls this for every claw × model before its first cell."""
    from clawmark.gateway.prices import default_prices, require_price

    if not claw.calls_model:
        return False
    cap = f"attempt cost cap of ${config.budgets.cost_usd:g}"
    return require_price(model, default_prices(), config.fallback_price, cap)


def unregister(gateway: Any, attempt_id: str) -> None:
    gateway.unregister_attempt(attempt_id)


def close(gateway: Any, attempt_id: str, drain_s: float) -> None:
    """Refuse the attempt's new calls and wait (up to `drain_s`, then cancel) for its running
    ones to write their ledger lines: after this the attempt's ledger can be summed."""
    gateway.close_attempt(attempt_id, drain_s=drain_s)


def host_url(gateway: Any, attempt_id: str, role: str) -> str:
    return gateway.base_url(attempt_id, role, host=HOST_LOOPBACK)


def container_url(gateway: Any, attempt_id: str, role: str) -> str:
    """URL from inside a container on the internal gateway network (the host side of it)."""
    from clawmark.runtime.network import gateway_network

    _, host_ip = gateway_network()
    return gateway.base_url(attempt_id, role, host=host_ip)
