"""Prices: litellm's bundled map, user YAML overrides (exact and patterns), cache read/write
rates, clear errors for a bad file."""

from __future__ import annotations

import pytest

from clawmark.gateway.prices import SCRIPTED_PRICE, PriceFileError, PriceTable, load_price_file


def test_bundled_map_prices_cached_tokens_at_the_cache_rate():
    # gpt-4o in litellm's local map: $2.5 in, $1.25 cached, $10 out per Mtok
    cost = PriceTable().cost("openai/gpt-4o", input_tokens=10_000, cached_tokens=8_000, output_tokens=1_000)
    assert cost == pytest.approx((2_000 * 2.5 + 8_000 * 1.25 + 1_000 * 10.0) / 1e6, rel=1e-12)


def test_cache_writes_are_priced_at_the_write_rate():
    # claude-sonnet-4-5: $3 in, $0.30 cache read, $3.75 cache write, $15 out per Mtok
    cost = PriceTable().cost("anthropic/claude-sonnet-4-5", input_tokens=5_000, cached_tokens=1_000,
                             cache_write_tokens=3_000, output_tokens=100)
    assert cost == pytest.approx((1_000 * 3 + 1_000 * 0.3 + 3_000 * 3.75 + 100 * 15) / 1e6, rel=1e-12)


def test_yaml_overrides_win_and_patterns_match(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text("models:\n  openai/gpt-4o: {input: 1, output: 2}\n  vllm/*: {input: 0.1, output: 0.2, cached_input: 0.01}\n")
    table = PriceTable(load_price_file(path))
    assert table.cost("openai/gpt-4o", input_tokens=1_000_000, output_tokens=0) == pytest.approx(1.0)
    assert table.cost("vllm/qwen-32b", input_tokens=2_000_000, cached_tokens=1_000_000, output_tokens=0) == pytest.approx(0.11)
    assert table.lookup("scripted/anything") == SCRIPTED_PRICE


def test_no_tokens_cost_nothing_even_unpriced():
    assert PriceTable().cost("openai/never-heard-of-it", input_tokens=0, output_tokens=0) == 0.0


@pytest.mark.parametrize("text, field", [("models: [1, 2]\n", "'models'"), ("models:\n  m: {input: -1, output: 1}\n", "'models'"),
                                          ("models: {m: {input: 1}}\n", "'models'")])
def test_bad_price_file_names_file_and_field(tmp_path, text, field):
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(PriceFileError) as err:
        load_price_file(path)
    assert str(err.value).startswith(f"{path}: field {field}") and "\n" not in str(err.value)
