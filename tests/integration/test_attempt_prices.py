"""An unpriced model runs only under the sweep's fallback price, and its row says so
(issue 7 part 4): cost from the fallback rates, `price_fallback` true; a priced model's row false."""

from __future__ import annotations

import pytest

from clawmark.gateway.prices import Price
from tests.support.attempt_fixtures import INI, attempt, gateway, store  # noqa: F401
from tests.support.gateway_fakes import FakeUpstream

pytestmark = pytest.mark.docker


def test_fallback_priced_row_is_marked_and_costed(store, gateway):  # noqa: F811
    with FakeUpstream() as upstream:
        row = attempt(INI, "reference", "openai/house-model-7b", store, gateway,
                      model_params={"api_base": upstream.base_url}, fallback_price=Price(input=2.0, output=8.0))
    assert row.price_fallback is True and row.usage["executor"].calls == 1
    assert row.cost_usd == pytest.approx((1000 * 2.0 + 100 * 8.0) / 1e6)
    stored = store.read(row.sweep_id).set_index("cell_key")
    assert bool(stored.loc[row.cell_key, "price_fallback"]) is True  # the committed row, not just the object
    scripted = attempt(INI, "reference", f"scripted/ref-wrong-{INI}", store, gateway)
    assert scripted.price_fallback is False
