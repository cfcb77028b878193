"""One cassette, several claws: the variant whose tools the request offers plays; a cassette may
carry its own price, which the gateway charges."""

from __future__ import annotations

import pytest

from clawmark.gateway.cassettes import Cassette, offered_tools
from clawmark.gateway.client import complete
from clawmark.gateway.ledger import Ledger, read_ledger
from clawmark.gateway.prices import SCRIPTED_PRICE, PriceTable

TWO_CLAWS = Cassette.model_validate({"name": "t", "steps": [{"content": "default first"}], "variants": [
    {"offers": ["exec"], "steps": [{"content": "exec first"}, {"match": "boom", "content": "exec saw boom"}]},
    {"offers": ["read_file", "submit"], "steps": [{"content": "submit first"}]},
]})


def tools(*names: str) -> list[dict]:
    return [{"type": "function", "function": {"name": n, "parameters": {}}} for n in names]


def test_the_first_variant_whose_tools_are_all_offered_plays():
    user = [{"role": "user", "content": "go"}]
    assert TWO_CLAWS.choose(user, offered_tools(tools("exec", "read_file", "submit")))[1].content == "exec first"
    assert TWO_CLAWS.choose(user, offered_tools(tools("bash", "read_file", "submit")))[1].content == "submit first"
    assert TWO_CLAWS.choose(user, offered_tools(tools("bash", "read_file")))[1].content == "default first"
    assert TWO_CLAWS.choose(user)[1].content == "default first"
    assert TWO_CLAWS.choose([{"role": "user", "content": "boom"}], ["exec"])[1].content == "exec saw boom"


def test_a_cassettes_price_is_what_the_gateway_charges(tmp_path, monkeypatch):
    (tmp_path / "cheap.yaml").write_text("price: {input: 0.5, cached_input: 0.05, output: 2.0}\n"
                                         "steps:\n  - content: hi\n    usage: {prompt: 1000, cached: 400, completion: 100}\n")
    monkeypatch.setenv("CLAWMARK_CASSETTES", str(tmp_path))
    assert PriceTable().lookup("scripted/cheap").output == 2.0
    assert PriceTable().lookup("scripted/gateway-test") == SCRIPTED_PRICE  # no price of its own
    assert PriceTable().lookup("scripted/cheap-{task_id}") == SCRIPTED_PRICE  # a family name is not a cassette
    ledger = Ledger(tmp_path / "ledger.jsonl")
    complete(role="executor", attempt_id="c1", model="scripted/cheap", messages=[{"role": "user", "content": "x"}],
             ledger=ledger)
    [record] = read_ledger(ledger.path)
    assert record.cost_usd == pytest.approx((600 * 0.5 + 400 * 0.05 + 100 * 2.0) / 1e6)


def test_a_bad_price_names_the_field(tmp_path):
    from clawmark.gateway.cassettes import CassetteError, load_cassette

    (tmp_path / "bad.yaml").write_text("price: {input: -1, output: 2}\nsteps:\n  - content: hi\n")
    with pytest.raises(CassetteError, match="field 'price"):
        load_cassette(tmp_path / "bad.yaml")
