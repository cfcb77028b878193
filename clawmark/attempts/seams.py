"""What an attempt needs of the two services around it, as small protocols: the model gateway
(`AttemptGateway`, implemented by clawmark.gateway.server.GatewayServer) and the results store
(`AttemptStore`, implemented by clawmark.results.store.ResultStore). Where the attempt runs
commands is `clawmark.runtime.exec_target.ExecTarget`, a floor lower: several rooms implement it.

An attempt is written against these, never against the concrete classes, so what it asks of
each service is this page, and a test's double satisfies it by having these methods.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from clawmark.gateway.prices import Price
from clawmark.gateway.routes import AttemptRoute
from clawmark.results import AttemptLayout, AttemptRow


@runtime_checkable
class AttemptGateway(Protocol):
    """One attempt's routes at the gateway: pinned, announced stage by stage, closed, removed."""

    def register_attempt(self, attempt_id: str, *, model: str | None = None, budget_usd: float | None = None,
                         role_budgets: dict[str, float | None] | None = None, ledger_path: Path | None = None,
                         role_models: dict[str, str] | None = None, params: dict[str, object] | None = None,
                         fallback_price: Price | None = None, require_token: bool | None = None,
                         executor_tools: list[str] | None = None) -> AttemptRoute: ...

    def register_sibling(self, attempt_id: str, of: AttemptRoute, *, model: str) -> AttemptRoute: ...

    def base_url(self, attempt_id: str, role: str, host: str = "127.0.0.1") -> str: ...

    def begin_stage_run(self, attempt_id: str, run_name: str, *, replay: bool = True) -> bool: ...

    def close_attempt(self, attempt_id: str, drain_s: float = 30.0) -> int: ...

    def unregister_attempt(self, attempt_id: str) -> None: ...


@runtime_checkable
class AttemptStore(Protocol):
    """Where an attempt's folder is and where its row is committed."""

    def layout(self, sweep_id: str, cell_key: str) -> AttemptLayout: ...

    def write(self, row: AttemptRow) -> str: ...
