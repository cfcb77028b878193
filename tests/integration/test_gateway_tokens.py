"""Attempt isolation at the gateway, from inside containers (issue 12 part 1): the pipeline's
gateway (sweep_gateway: loopback + the internal network's address) serves a container holding
attempt A's token on A's path only; B's path answers 403, no token 401, and neither reaches the
upstream or B's ledger. A real patch attempt (mini-swe-agent in its container) sends its token,
and neither the token nor a provider key from the gateway's environment lands in its artifacts."""

from __future__ import annotations

import json

import pytest

from clawmark.gateway.ledger import read_ledger
from clawmark.runtime.images import ensure_image
from clawmark.runtime.network import gateway_network
from clawmark.runtime.sandbox import Sandbox, SandboxConfig
from tests.support.attempt_fixtures import INI, attempt, store  # noqa: F401

pytestmark = pytest.mark.docker

CLIENT = """
import json, sys, urllib.error, urllib.request
body = json.dumps({"model": "x", "messages": [{"role": "user", "content": "ping"}]}).encode()
headers = {"content-type": "application/json"}
if sys.argv[2]:
    headers["authorization"] = "Bearer " + sys.argv[2]
try:
    print(urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/chat/completions", body, headers), timeout=20).status)
except urllib.error.HTTPError as err:
    print(err.code)
"""


@pytest.fixture
def pipeline_gateway(docker_client, tmp_path):
    from clawmark.sweeps.shared_gateway import sweep_gateway

    with sweep_gateway(tmp_path / "ledgers") as gateway:
        yield gateway


def test_a_container_reaches_only_its_own_attempt(pipeline_gateway, tmp_path):
    gw, (_, host_ip) = pipeline_gateway, gateway_network()
    a = gw.register_attempt("tok-a", model="scripted/gateway-test", ledger_path=tmp_path / "a.jsonl", require_token=True)
    gw.register_attempt("tok-b", model="scripted/gateway-test", ledger_path=tmp_path / "b.jsonl", require_token=True)
    config = SandboxConfig(image=ensure_image("base"), network="gateway", lifetime_seconds=300)
    with Sandbox.provision(config) as box:
        box.write_file("/tmp/client.py", CLIENT.encode())

        def status(attempt_id: str, token: str) -> str:
            url = gw.base_url(attempt_id, "executor", host=host_ip)
            return box.exec(["python3", "/tmp/client.py", url, token], timeout_s=60).stdout.strip()

        assert (status("tok-a", a.token), status("tok-b", a.token), status("tok-b", "")) == ("200", "403", "401")
    assert len(read_ledger(tmp_path / "a.jsonl")) == 1 and read_ledger(tmp_path / "b.jsonl") == []


def test_a_claw_sends_its_token_and_no_secret_reaches_its_artifacts(store, pipeline_gateway, monkeypatch):  # noqa: F811
    planted = "sk-planted-provider-key-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", planted)  # a provider key of the gateway process
    tokens: list[str] = []
    register = pipeline_gateway.register_attempt

    def spy(*args, **kwargs):
        route = register(*args, **kwargs)
        tokens.append(route.token)
        return route

    monkeypatch.setattr(pipeline_gateway, "register_attempt", spy)
    row = attempt(INI, "mini-swe-agent", f"scripted/mini-{INI}", store, pipeline_gateway)
    assert row.resolved is True and row.usage["executor"].calls == 4  # every call carried the token
    layout = store.layout(row.sweep_id, row.cell_key)
    texts = [p.read_bytes().decode("utf-8", "replace") for p in layout.dir.rglob("*") if p.is_file()]
    assert texts and tokens and not [t for t in texts if tokens[0] in t or planted in t]
    assert "gateway_token" not in json.dumps(row.model_dump(mode="json"))
