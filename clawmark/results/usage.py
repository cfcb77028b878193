"""Per-role token, call and cost totals of one attempt, and folding a ledger summary into them.

Every model call is attributed to one of `ROLES`. Cost is NaN when any call of the role was
unpriced (an unknown price is not a zero price); a role with no calls costs exactly 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt

Value = TypeVar("Value")

ROLES: tuple[str, ...] = ("executor", "supervisor", "user_simulator")
JUDGE_ROLES: tuple[str, ...] = ("supervisor", "user_simulator")  # the closed loop's judge; the patch track has none
TOKEN_KINDS: tuple[str, ...] = ("input", "cached", "cache_write", "output", "reasoning")

# Accepted spellings of each total in a ledger summary (gateway UsageRecord names first).
_ALIASES: dict[str, tuple[str, ...]] = {
    "input_tokens": ("input_tokens", "input", "prompt_tokens"),
    "cached_tokens": ("cached_tokens", "cached", "cache_read_tokens"),
    "cache_write_tokens": ("cache_write_tokens", "cache_write", "cache_creation_tokens"),
    "output_tokens": ("output_tokens", "output", "completion_tokens"),
    "reasoning_tokens": ("reasoning_tokens", "reasoning"),
    "calls": ("calls", "n_calls", "count"),
    "refused_calls": ("refused_calls",),
    "cost_usd": ("cost_usd", "cost"),
}


class UnknownRole(ValueError):
    """A usage summary names a role the results schema has no columns for (tokens would be lost)."""


class RoleUsage(BaseModel):
    """Totals of one role over one attempt. `None` token counts mean "not collected"."""

    model_config = ConfigDict(extra="forbid", frozen=True, ser_json_inf_nan="constants")

    input_tokens: NonNegativeInt | None = Field(None, description="Prompt tokens incl. cached.")
    cached_tokens: NonNegativeInt | None = Field(None, description="Prompt tokens read from cache.")
    cache_write_tokens: NonNegativeInt | None = Field(None, description="Prompt tokens written to cache.")
    output_tokens: NonNegativeInt | None = Field(None, description="Completion tokens incl. reasoning.")
    reasoning_tokens: NonNegativeInt | None = Field(None, description="Reasoning share of output.")
    calls: NonNegativeInt | None = Field(None, description="Model calls made by this role.")
    refused_calls: NonNegativeInt | None = Field(None, description="Calls refused for carrying this role's "
                                                 "token to another role's route (e.g. an executor calling its judge).")
    cost_usd: float = Field(math.nan, description="USD; NaN when unknown or any call unpriced.")
    cap_usd: float = Field(math.nan, description="The role's own cost cap; NaN when uncapped or not recorded.")

    @classmethod
    def zero(cls) -> RoleUsage:
        """A role that made no call: every count is a true zero, and so is the cost."""
        return cls(**{name: 0 for name in _ALIASES if name != "cost_usd"}, cost_usd=0.0)

    @classmethod
    def from_totals(cls, totals: Mapping[str, Any] | Any) -> RoleUsage:
        """Build from a ledger summary entry (a mapping or an object with attributes)."""
        data = totals if isinstance(totals, Mapping) else vars(totals)
        values = {name: _first(data, spellings) for name, spellings in _ALIASES.items()}
        counts = {k: int(v or 0) for k, v in values.items() if k != "cost_usd"}
        cost = values["cost_usd"]
        unpriced = int(data.get("unpriced_calls", 0) or 0) > 0
        cost_usd = math.nan if cost is None or unpriced else float(cost)
        return cls(**counts, cost_usd=cost_usd)


def _first(data: Mapping[str, Value], spellings: tuple[str, ...]) -> Value | None:
    for name in spellings:
        if name in data:
            return data[name]
    return None


def fold_usage(summary: Mapping[str, Any], caps: Mapping[str, float | None] | None = None) -> dict[str, RoleUsage]:
    """`{role: totals}` (e.g. `summarize_ledger(...)`) → a `RoleUsage` for every role, with its
    cost cap from `caps` (a role absent there, or None: NaN).

    Roles absent from the summary made no call and get true zeros; an unknown role raises
    `UnknownRole` rather than dropping its tokens on the floor.
    """
    if unknown := sorted(set(summary) - set(ROLES)):
        raise UnknownRole(f"usage summary has roles {unknown}; the results schema knows {list(ROLES)}")
    usage = {role: RoleUsage.from_totals(summary[role]) if role in summary else RoleUsage.zero() for role in ROLES}
    caps = {role: cap for role, cap in (caps or {}).items() if cap is not None}
    return {role: u.model_copy(update={"cap_usd": float(caps[role])}) if role in caps else u
            for role, u in usage.items()}


def total_cost(usage: Mapping[str, RoleUsage]) -> float:
    """Sum over roles; NaN as soon as one role's cost is unknown."""
    return math.fsum(u.cost_usd for u in usage.values()) if usage else math.nan
