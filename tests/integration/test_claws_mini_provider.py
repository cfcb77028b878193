"""A provider that answers 429 for the whole attempt: mini-swe-agent (the real package, in the
instance container) gives up and exits with its own error, yet the row says what happened — a
rate limit of the world (infra, rerunnable), read from the gateway ledger — never an unresolved
or empty-patch failure of the claw (issue 7 part 3)."""

from __future__ import annotations

import json
import math

import pytest

from clawmark.gateway.client import ClientConfig
from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.results import ErrorKind, Status
from tests.support.attempt_fixtures import INI, attempt, store  # noqa: F401
from tests.support.gateway_fakes import FakeUpstream

pytestmark = pytest.mark.docker

PRICED_MODEL = "openai/gpt-4o-mini"  # priced in litellm's bundled map; served by the fake upstream here


@pytest.fixture
def quick_gateway(docker_client, tmp_path):
    retries = ClientConfig(max_retries=1, backoff_base_s=0.05, backoff_max_s=0.1)
    from clawmark.runtime.network import gateway_network

    config = GatewayConfig(host="127.0.0.1", also_hosts=[gateway_network()[1]], ledger_dir=tmp_path / "ledgers",
                           client=retries)
    with GatewayServer(config) as server:
        yield server


def test_rate_limited_mini_is_a_provider_error_not_unresolved(store, quick_gateway):  # noqa: F811
    with FakeUpstream(failures=[(429, {})] * 10_000) as upstream:
        row = attempt(INI, "mini-swe-agent", PRICED_MODEL, store, quick_gateway,
                      model_params={"api_base": upstream.base_url},
                      claw_settings={"model_retry_attempts": 1})
    layout = store.layout(row.sweep_id, row.cell_key)
    turn = json.loads((layout.logs / "turn-0.json").read_text())
    assert turn["success"] is False and turn["exit_status"] != "Submitted"  # mini itself gave up
    assert (row.status, row.error_kind, row.resolved, row.passed) == (Status.RATE_LIMIT, ErrorKind.INFRA, None, None)
    assert math.isnan(row.score) and row.error_message.startswith("model provider rate_limited")
    ledger = read_ledger(layout.ledger)
    assert ledger and {r.status for r in ledger} == {"rate_limited"} and all(r.retries == 1 for r in ledger)
    assert len(upstream.requests) == 2 * len(ledger)  # the gateway's one retry per call, nothing else
    assert not layout.patch.exists()  # no patch taken, nothing graded


def test_a_gateway_the_container_cannot_reach_is_infra_not_the_claws_failure(store, tmp_path):  # noqa: F811
    # Bound on loopback only: the container's calls to the network address are refused, and no
    # call reaches the gateway, so its ledger cannot witness the failure.
    config = GatewayConfig(host="127.0.0.1", ledger_dir=tmp_path / "ledgers")
    with GatewayServer(config) as loopback_only:
        row = attempt(INI, "mini-swe-agent", f"scripted/mini-{INI}", store, loopback_only,
                      claw_settings={"model_retry_attempts": 1})
    layout = store.layout(row.sweep_id, row.cell_key)
    assert (row.status, row.error_kind, row.resolved) == (Status.INFRA_ERROR, ErrorKind.INFRA, None)
    assert row.error_message.startswith("no model call reached the gateway")
    assert read_ledger(layout.ledger) == [] and not layout.patch.exists()
