"""A cost cap never meets an unpriced model (issue 7 part 4): the attempt and the sweep refuse it
before anything runs, naming the model and how to add its price, unless a fallback price is set;
the gateway then prices the attempt's calls with the fallback."""

from __future__ import annotations

import math

import pytest

from clawmark.attempts.patch import PatchAttemptConfig, run_patch_attempt
from clawmark.gateway.http_chat import chat_completion
from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.prices import Price, PriceTable, UnpricedModel, require_price
from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.results import ResultStore
from tests.support.claws_host import INI, instance
from tests.support.gateway_fakes import FakeUpstream
from tests.unit.sweeps.test_sweeps_plan import _spec

UNPRICED = "openai/house-model-7b"
FALLBACK = Price(input=2.0, output=8.0)


def test_an_unpriced_model_under_a_cap_is_refused_with_the_way_out():
    with pytest.raises(UnpricedModel) as refused:
        require_price(UNPRICED, PriceTable(), None, "attempt cost cap of $3")
    message = str(refused.value)
    assert f"model '{UNPRICED}' has no known price" in message and "attempt cost cap of $3" in message
    assert "CLAWMARK_PRICES" in message and "fallback_price" in message


def test_the_fallback_prices_only_models_without_a_price_of_their_own():
    table = PriceTable().with_fallback(FALLBACK)
    assert require_price(UNPRICED, table, FALLBACK, "cap") is True
    assert require_price("openai/gpt-4o", table, FALLBACK, "cap") is False  # litellm's own price wins
    assert require_price("scripted/demo", PriceTable(), None, "cap") is False
    assert table.cost(UNPRICED, input_tokens=1_000_000, output_tokens=1_000_000) == pytest.approx(10.0)
    assert math.isnan(PriceTable().cost(UNPRICED, input_tokens=10, output_tokens=1))


def test_a_capped_sweep_with_an_unpriced_model_is_refused_before_any_cell(tmp_path):
    from clawmark.sweeps import plan_sweep

    store = ResultStore(tmp_path / "results")
    spec = _spec(claws=["reference", "nop"], models=["scripted/demo", UNPRICED], max_cost_usd=5.0)
    with pytest.raises(UnpricedModel, match="house-model-7b"):
        plan_sweep(spec, store)
    assert store.read(spec.sweep_id).empty and not (tmp_path / "results").exists()
    priced = _spec(claws=["reference"], models=[UNPRICED], attempt=PatchAttemptConfig(fallback_price=FALLBACK))
    assert len(plan_sweep(priced, store).cells) == 4  # the fallback makes it runnable


def test_models_only_non_spending_claws_see_need_no_price(tmp_path):
    from clawmark.sweeps import plan_sweep

    assert len(plan_sweep(_spec(claws=["oracle", "nop"], models=[UNPRICED]), ResultStore(tmp_path)).cells) == 8


def test_a_single_attempt_is_refused_before_its_folder_exists(tmp_path):
    store = ResultStore(tmp_path / "results")
    with pytest.raises(UnpricedModel):
        run_patch_attempt(instance(INI), "reference", UNPRICED, 0, store, "unit", gateway=None)
    assert not (tmp_path / "results").exists()


def test_the_gateway_charges_the_attempts_fallback_price(tmp_path):
    with FakeUpstream() as upstream, GatewayServer(GatewayConfig(ledger_dir=tmp_path)) as gw:
        gw.register_attempt("fb1", model=UNPRICED, budget_usd=1.0, params={"api_base": upstream.base_url},
                            fallback_price=FALLBACK, ledger_path=tmp_path / "fb1.jsonl")
        chat_completion(gw.base_url("fb1", "executor"), "anything", [{"role": "user", "content": "hi"}])
    (record,) = read_ledger(tmp_path / "fb1.jsonl")
    assert record.cost_usd == pytest.approx((1000 * 2.0 + 100 * 8.0) / 1e6)  # cached tokens at the input rate


def test_the_gateway_itself_refuses_a_capped_route_to_an_unpriced_model(tmp_path):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path)) as gw:
        with pytest.raises(UnpricedModel, match="cost cap of attempt r1"):
            gw.register_attempt("r1", model="scripted/demo", role_models={"supervisor": UNPRICED}, budget_usd=1.0)
        gw.register_attempt("r2", model=UNPRICED)  # no cap: nothing to enforce, calls cost NaN
        gw.register_attempt("r3", model=UNPRICED, budget_usd=1.0, fallback_price=FALLBACK)


def test_a_refused_sweep_pins_nothing_so_its_fix_is_not_a_protocol_change(tmp_path):
    from clawmark.sweeps.plan import pin_protocol

    store = ResultStore(tmp_path / "results")
    with pytest.raises(UnpricedModel):
        pin_protocol(_spec(claws=["reference"], models=[UNPRICED]), store)
    fixed = _spec(claws=["reference"], models=[UNPRICED], attempt=PatchAttemptConfig(fallback_price=FALLBACK))
    assert pin_protocol(fixed, store) == pin_protocol(fixed, store)  # pinned once, resumable
