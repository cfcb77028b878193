"""GatewayServer: the OpenAI-compatible gateway on a host address, uvicorn in a background thread."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from clawmark.gateway.app import GatewayApp
from clawmark.gateway.fast_chat import create_gateway_app
from clawmark.gateway.budget import Budget
from clawmark.gateway.client import ClientConfig, default_prices
from clawmark.gateway.prices import Price, require_price
from clawmark.gateway.routes import AttemptRoute, RouteTable
from clawmark.gateway.serving import BackgroundServer


class GatewayConfig(BaseModel):
    """Where the gateway listens and how it treats requests."""

    host: str = Field("127.0.0.1", description="Bind address (loopback: our own roles and host-side claws).")
    also_hosts: list[str] = Field(default_factory=list, description="More addresses on the same port, e.g. "
                                  "gateway_network()'s host IP for claws in containers. Never 0.0.0.0 in the pipeline.")
    port: int = Field(0, ge=0, le=65535, description="0 picks a free port (see GatewayServer.port).")
    ledger_dir: Path = Field(description="Default folder of per-attempt ledgers (<attempt_id>.jsonl).")
    allow_unregistered: bool = Field(
        False, description="Serve attempt ids nobody registered, with the model the request names "
                           "(handy for `gateway serve`; off in the pipeline so claws cannot pick models).")
    client: ClientConfig = Field(default_factory=ClientConfig, description="Timeouts and retries per call.")
    require_tokens: bool = Field(
        False, description="Every registered attempt needs its bearer token (the pipeline's mode); "
                           "attempts may also ask for it one by one (register_attempt(require_token=True)).")
    max_body_bytes: int = Field(64 * 2**20, gt=0, description="Largest request body (413 above it).")
    record_dir: Path | None = Field(
        None, description="Recording on: every reply is appended to <record_dir>/<attempt_id>.yaml, a cassette "
                          "that replays offline as scripted/<attempt_id> (CLAWMARK_CASSETTES=record_dir).")


class GatewayServer:
    """`with GatewayServer(cfg) as gw: gw.register_attempt("a1", model=...); gw.base_url("a1", "executor")`."""

    def __init__(self, config: GatewayConfig):
        self.config = config
        self.routes = RouteTable(config.ledger_dir, config.allow_unregistered, config.record_dir,
                                 config.require_tokens)
        self.app = create_gateway_app(GatewayApp(self.routes, config.client, config.max_body_bytes))
        self._server: BackgroundServer | None = None

    def start(self) -> "GatewayServer":
        self._server = BackgroundServer(self.app, self.config.host, self.config.port,
                                        also_hosts=tuple(self.config.also_hosts)).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __enter__(self) -> "GatewayServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("gateway not started")
        return self._server.port

    def base_url(self, attempt_id: str, role: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}/a/{attempt_id}/{role}/v1"

    def register_attempt(self, attempt_id: str, *, model: str | None = None, budget_usd: float | None = None,
                         role_budgets: dict[str, float | None] | None = None, sweep_budget: Budget | None = None,
                         ledger_path: Path | None = None, role_models: dict[str, str] | None = None,
                         params: dict[str, object] | None = None, fallback_price: Price | None = None,
                         require_token: bool | None = None, executor_tools: list[str] | None = None) -> AttemptRoute:
        """Pin an attempt's models (whatever the claw asks for), cost caps and ledger file.
        `budget_usd` caps the executor (and any role `role_budgets` leaves out); each role spends
        against its own cap. `params` are fixed litellm kwargs (api_base, temperature...) the
        claw cannot override; `fallback_price` prices calls to models that have no price of their
        own. `route.tokens` holds one bearer token per role (`route.token`: the executor's),
        checked when `require_token` (default: the config's `require_tokens`). A capped role whose
        model has no price (and no fallback) is refused with UnpricedModel: its calls would cost
        NaN and never reach the cap. `executor_tools`: the only tools the executor's requests may
        offer the model (a claw's tool filter); None = what the claw sends."""
        prices = default_prices().with_fallback(fallback_price) if fallback_price else None
        for role, name in {"executor": model, **(role_models or {})}.items():
            cap = (role_budgets or {}).get(role, budget_usd)
            if name and ((cap is not None and cap > 0) or sweep_budget is not None):  # a zero cap admits no call
                require_price(name, default_prices(), fallback_price, f"{role} cost cap of attempt {attempt_id}")
        return self.routes.register(attempt_id, model=model, budget_usd=budget_usd, role_budgets=role_budgets,
                                    sweep_budget=sweep_budget, ledger_path=ledger_path, role_models=role_models,
                                    params=params, prices=prices, require_token=require_token,
                                    executor_tools=executor_tools)

    def register_sibling(self, attempt_id: str, of: AttemptRoute, *, model: str,
                         params: dict[str, Any] | None = None) -> AttemptRoute:
        """The claw's vision route (`attempt_id`), pinned to `model`: it opens with the executor's
        token of `of` and spends its budget into its ledger, so it widens neither."""
        cap = of.budget("executor").cap_usd
        if cap is not None and cap > 0:
            prices = of.prices or default_prices()
            require_price(model, prices, prices.fallback, f"executor cost cap of attempt {of.attempt_id}")
        return self.routes.register_sibling(attempt_id, of, model=model, params=params)

    def unregister_attempt(self, attempt_id: str) -> None:
        self.routes.unregister(attempt_id)

    def begin_stage_run(self, attempt_id: str, run_name: str, *, replay: bool = True) -> bool:
        """Tell the gateway a run of one of the attempt's stages begins (`supervise[2]`): a run
        name it saw before is a rerun, whose calls replay the answers its earlier runs got and
        paid for (clawmark/gateway/replay.py). `replay=False` for a stage never rerun."""
        return self.routes.begin_stage_run(attempt_id, run_name, replay=replay)

    def close_attempt(self, attempt_id: str, drain_s: float = 30.0) -> int:
        """End an attempt at the gateway: new calls refused (410), running ones drained into the
        ledger (cancelled and recorded as abandoned after `drain_s`). After it returns, the
        attempt's ledger is complete. Returns how many calls had to be cancelled."""
        return self.routes.close(attempt_id, drain_s)

    def ledger_path(self, attempt_id: str) -> Path:
        return self.routes.ledger_path(attempt_id)
