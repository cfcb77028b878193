"""Fixtures of the attempt/claw integration tests: the bundled instances, a live gateway that
containers can reach (loopback + the internal network's address), and a fresh result store per test."""

from __future__ import annotations

import pytest

from clawmark.catalog import load_instances
from clawmark.settings import TASKS_CATALOG

INSTANCES_FILE = TASKS_CATALOG / "swe" / "instances.jsonl"
INSTANCES = {i.instance_id: i for i in load_instances(INSTANCES_FILE)}
INI = "clawmark-fixtures__iniparse-py-1"
INI_FIX_SHA = "10e334d892c3981b5916a2227e27293666ed5bc0"
INI_FIX_MESSAGE = "Only start inline comments after whitespace"


@pytest.fixture(scope="module")
def gateway(docker_client, tmp_path_factory):
    from clawmark.gateway.server import GatewayConfig, GatewayServer

    from clawmark.runtime.network import gateway_network

    # As the pipeline binds it: loopback and the containers' network address, never every interface.
    config = GatewayConfig(host="127.0.0.1", also_hosts=[gateway_network()[1]], ledger_dir=tmp_path_factory.mktemp("ledgers"))
    with GatewayServer(config) as server:
        yield server


@pytest.fixture
def store(tmp_path):
    from clawmark.results import ResultStore

    return ResultStore(tmp_path / "results")


def attempt(instance_id: str, claw: str, model: str, store, gateway, **config):
    from clawmark.attempts.patch import PatchAttemptConfig, run_patch_attempt

    return run_patch_attempt(INSTANCES[instance_id], claw, model, 0, store, "itest", gateway,
                             config=PatchAttemptConfig(**config))
