"""One model's price (below the price table and the cassettes, which both name it)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Price(BaseModel):
    """Dollars per million tokens. Cache prices default to the input price when not given."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(None, ge=0)
    cache_write: float | None = Field(None, ge=0)
