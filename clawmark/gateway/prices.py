"""Prices per model: user YAML overrides, then illustrative prices for scripted models (the
cassette's own `price`, else SCRIPTED_PRICE), then litellm's bundled (local, never downloaded)
price map. Unknown price -> NaN and one warning.

Override file (`CLAWMARK_PRICES`), dollars per million tokens; keys are model strings or
fnmatch patterns (`openai/*`)::

    models:
      openai/my-finetune: {input: 3.0, cached_input: 0.3, output: 15.0, cache_write: 3.75}
"""

from __future__ import annotations

import fnmatch
import logging
import math
import threading
from pathlib import Path

import yaml
from pydantic import ValidationError

from clawmark.gateway.cassettes import SCRIPTED_PREFIX, CassetteError, get_cassette, is_scripted
from clawmark.gateway.token_price import Price

log = logging.getLogger(__name__)


class PriceFileError(ValueError):
    """The price override file is unreadable or malformed; the message names file and field."""


class UnpricedModel(ValueError):
    """A cost cap was asked for a model without a price: the cap could not be enforced."""


# Illustrative prices of a mid-price hosted model, so the scripted demo has a meaningful cost axis.
SCRIPTED_PRICE = Price(input=3.0, cached_input=0.3, output=15.0, cache_write=3.75)


def load_price_file(path: Path) -> dict[str, Price]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise PriceFileError(f"{path}: cannot read prices ({exc})") from exc
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict):
        raise PriceFileError(f"{path}: field 'models' expected a mapping of model -> prices")
    try:
        return {str(name): Price.model_validate(spec) for name, spec in models.items()}
    except ValidationError as exc:
        raise PriceFileError(f"{path}: field 'models': {exc.errors()[0]['msg']} (expected input/output per Mtok)") from exc


def _cassette_price(model: str) -> Price | None:
    """The price a cassette declares for the model it plays (e.g. a cheap and a dear demo model)."""
    try:
        return get_cassette(model.removeprefix(SCRIPTED_PREFIX)).price
    except CassetteError:  # a `{task_id}` family or a cassette written later: the scripted price
        return None


def _from_litellm(model: str) -> Price | None:
    import litellm  # noqa: PLC0415 - heavy; LITELLM_LOCAL_MODEL_COST_MAP is set by clawmark.gateway

    for key in (model, model.split("/", 1)[-1]):
        entry = litellm.model_cost.get(key)
        if entry and entry.get("input_cost_per_token") is not None and entry.get("output_cost_per_token") is not None:
            per_m = lambda name: None if entry.get(name) is None else entry[name] * 1e6  # noqa: E731
            return Price(input=per_m("input_cost_per_token"), output=per_m("output_cost_per_token"),
                         cached_input=per_m("cache_read_input_token_cost"),
                         cache_write=per_m("cache_creation_input_token_cost"))
    return None


class PriceTable:
    """Looks prices up and turns token counts into dollars."""

    def __init__(self, overrides: dict[str, Price] | None = None, fallback: Price | None = None):
        self.overrides = dict(overrides or {})
        self.fallback = fallback
        self._warned: set[str] = set()
        self._lock = threading.Lock()

    def with_fallback(self, fallback: Price | None) -> "PriceTable":
        """The same prices, with `fallback` for models that have none of their own."""
        return self if fallback is None else PriceTable(self.overrides, fallback)

    @classmethod
    def from_settings(cls) -> "PriceTable":
        from clawmark.settings import settings  # noqa: PLC0415 - keeps this module importable alone

        path = settings().prices_file
        return cls(load_price_file(path) if path else None)

    def lookup(self, model: str) -> Price | None:
        return self.own_price(model) or self.fallback

    def own_price(self, model: str) -> Price | None:
        """The model's price (override, scripted, litellm), never the fallback."""
        if model in self.overrides:
            return self.overrides[model]
        for pattern, price in self.overrides.items():
            if fnmatch.fnmatchcase(model, pattern):
                return price
        if is_scripted(model):
            return _cassette_price(model) or SCRIPTED_PRICE
        return _from_litellm(model)

    def cost(self, model: str, *, input_tokens: int, cached_tokens: int = 0,
             cache_write_tokens: int = 0, output_tokens: int = 0) -> float:
        """(input - cached - cache_write)*p_in + cached*p_cache + cache_write*p_write + output*p_out."""
        if input_tokens == 0 and output_tokens == 0:
            return 0.0
        price = self.lookup(model)
        if price is None:
            self._warn_unpriced(model)
            return math.nan
        fresh = max(input_tokens - cached_tokens - cache_write_tokens, 0)
        cached_rate = price.input if price.cached_input is None else price.cached_input
        write_rate = price.input if price.cache_write is None else price.cache_write
        dollars_m = fresh * price.input + cached_tokens * cached_rate + cache_write_tokens * write_rate
        return (dollars_m + output_tokens * price.output) / 1e6

    def _warn_unpriced(self, model: str) -> None:
        with self._lock:
            if model in self._warned:
                return
            self._warned.add(model)
        log.warning("no price known for model %r: its cost is NaN (add it to the CLAWMARK_PRICES file)", model)


def require_price(model: str, prices: PriceTable, fallback: Price | None, cap: str) -> bool:
    """True when `fallback` will price `model` (the row marks it); raises UnpricedModel when a cost
    cap (`cap` names it) is asked for a model with no price at all, as its calls would cost NaN and
    could never reach the cap."""
    if prices.own_price(model) is not None:
        return False
    if fallback is not None:
        return True
    raise UnpricedModel(
        f"model {model!r} has no known price, so the {cap} cannot be enforced: add it to the price file "
        f"named by CLAWMARK_PRICES (models: {{{model!r}: {{input: <USD per Mtok>, output: <USD per Mtok>}}}}) "
        "or set a fallback price (attempt.fallback_price in the sweep spec)")


_default: PriceTable | None = None


def default_prices() -> PriceTable:
    """The process's price table (CLAWMARK_PRICES read once). Here, not in client.py, so a sweep's
    price check for scripted models does not import litellm (seconds of a rerun that runs nothing)."""
    global _default
    if _default is None:
        _default = PriceTable.from_settings()
    return _default
