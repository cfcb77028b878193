"""Access and caps per role at the gateway (issue 17 items 1-2), over real HTTP: each role of an
attempt has its own token; the executor's opens its route and its vision sibling only; another
role's token is 403, leaves a `refused` ledger line and reaches no upstream, bills nothing;
`/v1/models` answers a valid token only, with its role's models; each role spends against its
own cap, the vision sibling against the executor's."""

from __future__ import annotations

import math

import httpx
import pytest

from clawmark.gateway.ledger import read_ledger, summarize_ledger
from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.results import AttemptRow
from tests.support.gateway_fakes import FakeUpstream

EXECUTOR, VISION = "openai/gpt-4o-mini", "openai/gpt-4o"
JUDGES = {"supervisor": "openai/gpt-4.1", "user_simulator": "openai/gpt-4.1-mini"}
ASK = {"model": "x", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture(scope="module")
def upstream():
    with FakeUpstream() as fake:
        yield fake


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path_factory.mktemp("ledgers"))) as gw:
        yield gw


def _register(gw, attempt, upstream, tmp_path, caps=None):
    route = gw.register_attempt(attempt, model=EXECUTOR, role_models={"executor": EXECUTOR, **JUDGES},
                                budget_usd=(caps or {}).get("executor", 1.0), role_budgets=caps,
                                params={"api_base": upstream.base_url}, ledger_path=tmp_path / f"{attempt}.jsonl",
                                require_token=True)
    gw.register_sibling(f"{attempt}-vision", route, model=VISION, params={"api_base": upstream.base_url})
    return route


def _call(gw, attempt, role, token):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(f"{gw.base_url(attempt, role)}/chat/completions", json=ASK, headers=headers, timeout=30)


def _models(gw, token, path="/v1/models"):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.get(f"http://127.0.0.1:{gw.port}{path}", headers=headers, timeout=30)


def test_the_executors_token_opens_its_own_routes_only(gateway, upstream, tmp_path):
    route = _register(gateway, "roles-a", upstream, tmp_path)
    tokens = route.tokens
    assert sorted(tokens) == ["executor", "supervisor", "user_simulator"] and len(set(tokens.values())) == 3
    assert route.token == tokens["executor"]
    sent = len(upstream.requests)
    refused = [_call(gateway, "roles-a", role, tokens["executor"]) for role in JUDGES]
    assert [r.status_code for r in refused] == [403, 403]
    assert "does not open its supervisor route" in refused[0].json()["error"]["message"]
    assert len(upstream.requests) == sent  # refused before any upstream call
    assert _call(gateway, "roles-a-vision", "supervisor", tokens["executor"]).status_code == 403
    assert _call(gateway, "roles-a-vision", "executor", tokens["supervisor"]).status_code == 403
    own = [_call(gateway, "roles-a", role, token).status_code for role, token in tokens.items()]
    assert own == [200, 200, 200] and _call(gateway, "roles-a-vision", "executor", tokens["executor"]).status_code == 200

    lines = read_ledger(tmp_path / "roles-a.jsonl")
    marked = [(r.role, r.status, r.cost_usd, r.input_tokens) for r in lines if r.refused]
    assert marked == [("executor", "refused", 0.0, 0)] * 3  # a judge's token on the vision route: unknown there
    assert [r.error for r in lines if r.refused][:2] == [
        "executor token on the supervisor route: refused (403), not billed",
        "executor token on the user_simulator route: refused (403), not billed"]
    summary = summarize_ledger(tmp_path / "roles-a.jsonl")
    assert summary["executor"]["refused_calls"] == 3 and "refused_calls" not in summary["supervisor"]
    assert (summary["supervisor"]["calls"], summary["user_simulator"]["calls"]) == (1, 1)  # their own calls only
    row_usage = AttemptRow.from_usage(summary, caps={"executor": 1.0}, sweep_id="s", track="closed_loop", task_id="t", task_hash="h",
                                      claw="c", claw_version="1", claw_settings_hash="x", model=EXECUTOR,
                                      model_params_hash="y", status="fail", score=0.0, threshold=1.0).usage
    assert row_usage["executor"].refused_calls == 3 and row_usage["executor"].calls == 2  # own route + vision
    assert row_usage["executor"].cap_usd == 1.0 and math.isnan(row_usage["supervisor"].cap_usd)


def test_model_discovery_needs_a_valid_token_and_lists_its_roles_models(gateway, upstream, tmp_path):
    route = _register(gateway, "roles-m", upstream, tmp_path)
    for path in ("/v1/models", "/api/v1/models"):
        assert _models(gateway, "", path).status_code == 401
        assert _models(gateway, "not-a-token", path).status_code == 401
    listed = {m["id"] for m in _models(gateway, route.tokens["executor"]).json()["data"]}
    assert listed == {EXECUTOR, VISION}  # its route and its vision sibling: no judge model
    assert {m["id"] for m in _models(gateway, route.tokens["supervisor"]).json()["data"]} == {JUDGES["supervisor"]}
    judge_models = httpx.get(f"{gateway.base_url('roles-m', 'supervisor')}/models",
                             headers={"Authorization": f"Bearer {route.tokens['executor']}"}, timeout=30)
    assert judge_models.status_code == 403


def test_each_role_spends_against_its_own_cap(gateway, upstream, tmp_path):
    caps = {"executor": 1e-6, "supervisor": 1.0, "user_simulator": 0.0}
    route = _register(gateway, "roles-c", upstream, tmp_path, caps=caps)
    executor = [_call(gateway, "roles-c", "executor", route.token).status_code for _ in range(2)]
    vision = _call(gateway, "roles-c-vision", "executor", route.token)  # the same cap: already reached
    judged = [_call(gateway, "roles-c", "supervisor", route.tokens["supervisor"]).status_code for _ in range(2)]
    simulator = _call(gateway, "roles-c", "user_simulator", route.tokens["user_simulator"])
    assert executor == [200, 402] and vision.status_code == 402 and judged == [200, 200]
    assert "executor of attempt roles-c budget" in vision.json()["error"]["message"]
    assert simulator.status_code == 402  # a zero cap admits no call
    spent = {role: route.budget(role).spent_usd for role in caps}
    assert spent["executor"] > caps["executor"] and spent["supervisor"] > 0 and spent["user_simulator"] == 0
    summary = summarize_ledger(tmp_path / "roles-c.jsonl")
    assert math.isclose(summary["executor"]["cost_usd"], spent["executor"])


def test_refused_lines_are_bounded_per_route(gateway, upstream, tmp_path, monkeypatch):
    monkeypatch.setattr("clawmark.gateway.routes.MAX_REFUSED_LINES", 2)
    route = _register(gateway, "roles-flood", upstream, tmp_path)
    statuses = [_call(gateway, "roles-flood", "supervisor", route.token).status_code for _ in range(4)]
    assert statuses == [403] * 4  # every one refused, only the first two written down
    assert [r.status for r in read_ledger(tmp_path / "roles-flood.jsonl")] == ["refused"] * 2
