"""Per-attempt routing: which model, budget, ledger and fixed parameters an attempt's calls get.
A registered attempt's model and budget cannot be changed from inside the claw's requests.

Access is per role (issue 17): each role of an attempt has its own bearer token and its own cost
cap. The executor's token opens the executor's route only (and the claw's vision route, a
sibling sharing its token, budget and ledger); the judges' tokens stay in the host process. A
call carrying another role's token is refused 403 and leaves a `refused` ledger line, never a
bill: the ledger shows a claw that tried to reach its judge."""

from __future__ import annotations

import hmac
import re
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawmark.gateway.budget import Budget
from clawmark.gateway.inflight import AttemptClosed, InFlight
from clawmark.gateway.ledger import Ledger, refused_record
from clawmark.gateway.passthrough import OPENAI_BODY_PARAMS
from clawmark.gateway.prices import PriceTable
from clawmark.gateway.recording import CassetteRecorder
from clawmark.gateway.replay import ReplayStore
from clawmark.results.usage import ROLES

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
MAX_REFUSED_LINES = 200  # per route: a claw hammering its judge's route cannot fill the disk (all still 403)

# Request fields a claw may set; anything else (api_base, api_key, model_list, ...) is dropped so
# a claw cannot redirect the call or bill another key.
CLAW_PARAMS = OPENAI_BODY_PARAMS


class UnknownAttempt(LookupError):
    """A request for an attempt the gateway does not serve (strict mode), or a malformed id."""


class TokenRefused(PermissionError):
    """A request to a token-protected attempt without its bearer token (401) or with another (403)."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


@dataclass
class AttemptRoute:
    attempt_id: str
    ledger: Ledger
    budgets: dict[str, Budget]  # per role: the executor's cap is its alone, each judge has its own
    model: str | None = None  # None: the model the claw names (open mode only)
    role_models: dict[str, str] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)  # fixed litellm params (api_base, keys, ...)
    recorder: CassetteRecorder | None = None  # recording on: replies appended to a cassette
    prices: PriceTable | None = None  # None: the gateway's table; else one with the attempt's fallback
    tokens: dict[str, str] = field(default_factory=dict)  # role -> its bearer token (random, 256 bits)
    require_token: bool = False  # True: a call without its role's token is refused before anything else
    executor_tools: frozenset[str] | None = None  # the only tool names the executor's requests keep; None = all
    inflight: InFlight = field(init=False)
    replays: ReplayStore = field(init=False)  # answers a rerun stage replays; dies with the route
    refused_lines: int = field(init=False, default=0)  # calls with another role's token, ledgered so far

    def __post_init__(self) -> None:
        self.inflight = InFlight(self.attempt_id)
        self.replays = ReplayStore()

    @property
    def token(self) -> str:
        """The executor's token: the one the claw carries."""
        return self.tokens.get("executor", "")

    def budget(self, role: str) -> Budget:
        """The role's budget; a role the attempt has none for (not a known role) admits no call."""
        return self.budgets.get(role) or Budget(0.0, name=f"role {role!r} of attempt {self.attempt_id}")

    def holder(self, presented: str) -> str | None:
        """The role whose token `presented` is (constant-time comparisons), or None."""
        found = None
        for role, token in self.tokens.items():
            if hmac.compare_digest(presented.encode(), token.encode()):
                found = role
        return found

    def check_token(self, presented: str | None, role: str) -> None:
        """Refuse a call to `role` that does not carry that role's token. Another role's token
        of this attempt (an executor calling its judge) is written to the ledger as refused."""
        if not self.require_token:
            return
        if not presented:
            raise TokenRefused(f"attempt {self.attempt_id!r} needs its bearer token", 401)
        holder = self.holder(presented)
        if holder == role:
            return
        if holder is None:
            raise TokenRefused(f"this token does not belong to attempt {self.attempt_id!r}", 403)
        if self.refused_lines < MAX_REFUSED_LINES:  # checked on the event loop: one writer
            self.refused_lines += 1
            self.ledger.append(refused_record(self.attempt_id, holder, self.model_for(holder, None) or "", role))
        raise TokenRefused(f"the {holder} token of attempt {self.attempt_id!r} does not open its {role} route", 403)

    def model_for(self, role: str, asked: str | None) -> str | None:
        return self.role_models.get(role) or self.model or asked


class RouteTable:
    """Thread-safe map attempt id -> route; in open mode unknown ids get a default route."""

    def __init__(self, ledger_dir: Path, allow_unregistered: bool, record_dir: Path | None = None,
                 require_tokens: bool = False):
        self.ledger_dir = ledger_dir
        self.record_dir = record_dir
        self.allow_unregistered = allow_unregistered
        self.require_tokens = require_tokens
        self._routes: dict[str, AttemptRoute] = {}
        self._closed: set[str] = set()  # never served again, even in open mode
        self._lock = threading.Lock()

    def register(self, attempt_id: str, *, model: str | None = None, budget_usd: float | None = None,
                 role_budgets: dict[str, float | None] | None = None, sweep_budget: Budget | None = None,
                 ledger_path: Path | None = None, role_models: dict[str, str] | None = None,
                 params: dict[str, Any] | None = None, prices: PriceTable | None = None,
                 require_token: bool | None = None, executor_tools: list[str] | None = None) -> AttemptRoute:
        """`budget_usd`: the executor's cap (and that of any role `role_budgets` leaves out);
        `require_token`: None follows the table's `require_tokens`. Tokens are issued to the
        executor and to every role of `role_models`; other roles cannot be called with a token.
        `executor_tools`: the claw's tool filter (clawmark.gateway.app.offered_tools)."""
        check_id(attempt_id)
        caps = {role: (role_budgets or {}).get(role, budget_usd) for role in ROLES}
        budgets = {role: Budget(cap, name=f"{role} of attempt {attempt_id}", parent=sweep_budget)
                   for role, cap in caps.items()}
        tokens = {role: secrets.token_urlsafe(32) for role in dict.fromkeys(["executor", *(role_models or {})])}
        route = AttemptRoute(
            attempt_id=attempt_id, model=model, role_models=dict(role_models or {}), params=dict(params or {}),
            prices=prices, tokens=tokens, budgets=budgets,
            executor_tools=None if executor_tools is None else frozenset(executor_tools),
            require_token=self.require_tokens if require_token is None else require_token,
            ledger=Ledger(ledger_path or self.default_ledger_path(attempt_id)),
            recorder=CassetteRecorder(self.record_dir / f"{attempt_id}.yaml") if self.record_dir else None)
        return self._add(route)

    def register_sibling(self, attempt_id: str, of: AttemptRoute, *, model: str, role: str = "executor",
                         params: dict[str, Any] | None = None) -> AttemptRoute:
        """A second route of `of`'s `role` pinned to another model (the claw's vision fallback):
        the same token, budget and ledger, so it widens neither the role's access nor its cap."""
        check_id(attempt_id)
        route = AttemptRoute(attempt_id=attempt_id, model=model, prices=of.prices, ledger=of.ledger,
                             params=dict(params or {}),
                             tokens={role: of.tokens[role]}, budgets={role: of.budget(role)},
                             require_token=of.require_token)
        return self._add(route)

    def _add(self, route: AttemptRoute) -> AttemptRoute:
        with self._lock:
            self._closed.discard(route.attempt_id)
            self._routes[route.attempt_id] = route
        return route

    def holders(self, presented: str) -> list[tuple[AttemptRoute, str]]:
        """Every (route, role) a token opens: its role's route and any sibling of it."""
        with self._lock:
            routes = list(self._routes.values())
        return [(route, role) for route in routes if route.require_token
                and (role := route.holder(presented)) is not None]

    def unregister(self, attempt_id: str) -> None:
        with self._lock:
            self._routes.pop(attempt_id, None)

    def begin_stage_run(self, attempt_id: str, run_name: str, *, replay: bool) -> bool:
        """A run of one of the attempt's stages begins (see clawmark/gateway/replay.py); False
        when the attempt has no route (yet)."""
        with self._lock:
            route = self._routes.get(attempt_id)
        if route is not None:
            route.replays.begin_run(run_name, replay)
        return route is not None

    def close(self, attempt_id: str, drain_s: float) -> int:
        """Refuse the attempt's new calls, let its running ones write their ledger lines (cancel
        them after `drain_s`), then forget it; returns how many calls were cancelled."""
        with self._lock:
            route = self._routes.get(attempt_id)
            self._closed.add(attempt_id)
        cancelled = route.inflight.close(drain_s) if route is not None else 0
        self.unregister(attempt_id)
        return cancelled

    def get(self, attempt_id: str) -> AttemptRoute:
        check_id(attempt_id)
        with self._lock:
            route = self._routes.get(attempt_id)
            closed = attempt_id in self._closed
        if closed:
            raise AttemptClosed(f"attempt {attempt_id!r} is closed")
        if route is not None:
            return route
        if not self.allow_unregistered:
            raise UnknownAttempt(f"attempt {attempt_id!r} is not registered with this gateway")
        return self.register(attempt_id, require_token=False)  # open mode: asked for explicitly, serves anyone

    def default_ledger_path(self, attempt_id: str) -> Path:
        return self.ledger_dir / f"{attempt_id}.jsonl"

    def ledger_path(self, attempt_id: str) -> Path:
        with self._lock:
            route = self._routes.get(attempt_id)
        return route.ledger.path if route else self.default_ledger_path(attempt_id)


def check_id(value: str, what: str = "attempt id") -> str:
    if not ID_RE.match(value):
        raise UnknownAttempt(f"{what} {value!r}: expected letters, digits, '.', '_' or '-' (max 128)")
    return value
