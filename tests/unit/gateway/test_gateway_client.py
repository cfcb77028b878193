"""client.complete against a fake provider over real HTTP: retries with backoff on 429 (honouring
Retry-After) and 5xx, none on 401/400; exact cost with cached tokens; unknown price -> NaN + one
warning; budgets refuse calls before they are made."""

from __future__ import annotations

import logging
import math
import time

import pytest

from clawmark.gateway.budget import Budget
from clawmark.gateway.client import ClientConfig, complete
from clawmark.gateway.errors import AuthError, BudgetExceeded, InvalidRequest, UpstreamUnavailable
from clawmark.gateway.ledger import Ledger, read_ledger
from clawmark.gateway.prices import Price, PriceTable
from tests.support.gateway_fakes import FakeUpstream

FAST = ClientConfig(backoff_base_s=0.05, backoff_max_s=5, max_retries=3, timeout_s=10)
PRICES = PriceTable({"openai/fake": Price(input=2.0, cached_input=0.5, output=8.0)})
MESSAGES = [{"role": "user", "content": "hi"}]


def ask(upstream: FakeUpstream, ledger: Ledger | None = None, model: str = "openai/fake", **kw):
    kw = {"config": FAST, "prices": PRICES} | kw
    return complete(role="supervisor", attempt_id="t1", model=model, messages=MESSAGES, ledger=ledger,
                    api_base=upstream.base_url, api_key="sk-fake", **kw)


def test_429_with_retry_after_is_retried_after_waiting(tmp_path):
    ledger = Ledger(tmp_path / "l.jsonl")
    with FakeUpstream([(429, {"Retry-After": "1"})]) as upstream:
        started = time.monotonic()
        result = ask(upstream, ledger)
        elapsed = time.monotonic() - started
    assert result.response["choices"][0]["message"]["content"] == "hello from upstream"
    assert len(upstream.requests) == 2 and elapsed >= 1.0
    assert result.usage.retries == 1 and read_ledger(ledger.path)[0].retries == 1


def test_5xx_retried_until_attempts_run_out(tmp_path):
    ledger = Ledger(tmp_path / "l.jsonl")
    with FakeUpstream([(503, {})] * 10) as upstream, pytest.raises(UpstreamUnavailable):
        ask(upstream, ledger)
    assert len(upstream.requests) == 1 + FAST.max_retries
    [record] = read_ledger(ledger.path)
    assert record.status == "upstream_unavailable" and record.retries == FAST.max_retries


def test_401_is_not_retried(tmp_path):
    ledger = Ledger(tmp_path / "l.jsonl")
    with FakeUpstream([(401, {}), (401, {})]) as upstream, pytest.raises(AuthError):
        ask(upstream, ledger)
    assert len(upstream.requests) == 1
    assert read_ledger(ledger.path)[0].status == "auth_error"


def test_400_is_not_retried():
    with FakeUpstream([(400, {})]) as upstream, pytest.raises(InvalidRequest):
        ask(upstream)
    assert len(upstream.requests) == 1


def test_cached_tokens_are_priced_at_the_cache_rate():
    with FakeUpstream() as upstream:
        usage = ask(upstream).usage
    assert (usage.input_tokens, usage.cached_tokens, usage.output_tokens) == (1000, 600, 100)
    # 400 fresh * $2/M + 600 cached * $0.5/M + 100 out * $8/M
    assert usage.cost_usd == pytest.approx(0.0019, rel=1e-12)


def test_unknown_price_is_nan_with_one_warning(caplog):
    with FakeUpstream() as upstream, caplog.at_level(logging.WARNING, logger="clawmark.gateway.prices"):
        table = PriceTable()
        first = ask(upstream, model="openai/no-such-model-anywhere", prices=table)
        second = ask(upstream, model="openai/no-such-model-anywhere", prices=table)
    assert math.isnan(first.usage.cost_usd) and math.isnan(second.usage.cost_usd)
    warnings = [r for r in caplog.records if "no-such-model-anywhere" in r.getMessage()]
    assert len(warnings) == 1


def test_budget_refuses_the_call_once_the_cap_is_reached(tmp_path):
    ledger = Ledger(tmp_path / "l.jsonl")
    budget = Budget(0.003)
    with FakeUpstream() as upstream:
        ask(upstream, ledger, budget=budget)
        ask(upstream, ledger, budget=budget)  # 0.0019 spent < 0.003: still allowed
        with pytest.raises(BudgetExceeded):
            ask(upstream, ledger, budget=budget)
        assert len(upstream.requests) == 2
    assert budget.spent_usd == pytest.approx(0.0038)
    assert [r.status for r in read_ledger(ledger.path)] == ["ok", "ok", "budget_exceeded"]


def test_sweep_budget_caps_all_its_attempts():
    sweep = Budget(0.0015, name="sweep")
    with FakeUpstream() as upstream:
        ask(upstream, budget=Budget(None, parent=sweep))
        with pytest.raises(BudgetExceeded, match="sweep budget"):
            ask(upstream, budget=Budget(None, parent=sweep))


def test_refused_connection_is_retried_then_typed(tmp_path):
    ledger = Ledger(tmp_path / "l.jsonl")
    with FakeUpstream() as upstream:
        closed_url = upstream.base_url
    with pytest.raises(UpstreamUnavailable):
        complete(role="executor", attempt_id="t1", model="openai/fake", messages=MESSAGES, ledger=ledger,
                 config=FAST, prices=PRICES, api_base=closed_url, api_key="k")
    assert read_ledger(ledger.path)[0].retries == FAST.max_retries


def test_per_call_timeout_cuts_a_slow_upstream():
    # The scripted answer comes after 2 s: a call that raised a timeout never waited for it.
    with pytest.raises(UpstreamUnavailable, match="(?i)timed out|timeout"):
        complete(role="executor", attempt_id="t1", model="scripted/gateway-test",
                 messages=[{"role": "user", "content": "slow please"}],
                 config=ClientConfig(timeout_s=0.5, max_retries=0))


def test_resumed_sweep_budget_counts_earlier_ledgers(tmp_path):
    ledger = Ledger(tmp_path / "a1.jsonl")
    with FakeUpstream() as upstream:
        ask(upstream, ledger)  # an earlier run spent $0.0019
        sweep = Budget.resumed(0.0015, [ledger.path, tmp_path / "never-ran.jsonl"])
        with pytest.raises(BudgetExceeded):
            ask(upstream, budget=Budget(None, parent=sweep))
    assert sweep.spent_usd == pytest.approx(0.0019)


def test_unknown_role_is_refused_before_any_request(tmp_path):
    ledger = Ledger(tmp_path / "l.jsonl")
    with FakeUpstream([(200, {})]) as upstream, pytest.raises(InvalidRequest, match="'user_sim'"):
        complete(role="user_sim", attempt_id="t1", model="openai/fake", messages=MESSAGES, ledger=ledger,
                 api_base=upstream.base_url, api_key="sk-fake", config=FAST, prices=PRICES)
    assert upstream.requests == [] and not ledger.path.exists()
