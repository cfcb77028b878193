"""Fixtures of the conformance kit: the recording provider double, a gateway in front of it that
containers can reach (with short retries, so provider failures end quickly), a result store."""

from __future__ import annotations

import os

import pytest

from tests.claws.kit import CASSETTES, KIT_CLAWS, KitClaw, RecordingProvider, claw_param


@pytest.fixture(scope="session")
def provider():
    from clawmark.gateway.serving import BackgroundServer

    recorder = RecordingProvider()
    server = BackgroundServer(recorder, "127.0.0.1", 0).start()
    saved = {name: os.environ.get(name) for name in ("CLAWMARK_SCRIPTED_URL", "CLAWMARK_CASSETTES")}
    os.environ["CLAWMARK_SCRIPTED_URL"] = f"http://127.0.0.1:{server.port}/v1"
    os.environ["CLAWMARK_CASSETTES"] = os.pathsep.join(filter(None, [str(CASSETTES), saved["CLAWMARK_CASSETTES"]]))
    try:
        yield recorder
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        server.stop()


@pytest.fixture(scope="session")
def gateway(docker_client, provider, tmp_path_factory):
    from clawmark.gateway.client import ClientConfig
    from clawmark.gateway.server import GatewayConfig, GatewayServer
    from clawmark.runtime.network import gateway_network

    # Bound as the pipeline binds it (loopback + the containers' network), never on every address.
    config = GatewayConfig(host="127.0.0.1", also_hosts=[gateway_network()[1]],
                           ledger_dir=tmp_path_factory.mktemp("kit-ledgers"),
                           client=ClientConfig(max_retries=1, backoff_base_s=0.1, backoff_max_s=0.2))
    with GatewayServer(config) as server:
        yield server


@pytest.fixture
def store(tmp_path):
    from clawmark.results import ResultStore

    return ResultStore(tmp_path / "results")


# An EDICT turn is four OpenClaw runs: one follow-up case took 650 s at load 13, near pytest's 900 s.


@pytest.fixture(params=[claw_param(claw) for claw in KIT_CLAWS])
def kit_claw(request) -> KitClaw:
    return request.param
