"""A container started by the sandbox on the internal `gateway` network reaches the model gateway
(bound on the network's host IP) and gets a scripted completion attributed to its attempt."""

from __future__ import annotations

import json

import pytest

from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.runtime.images import ensure_image
from clawmark.runtime.network import gateway_network
from clawmark.runtime.sandbox import Sandbox, SandboxConfig

CLIENT = """
import json, sys, urllib.request
body = json.dumps({"model": "whatever-the-claw-wants", "messages": [{"role": "user", "content": "ping"}]})
request = urllib.request.Request(sys.argv[1] + "/chat/completions", body.encode(), {"content-type": "application/json"})
print(urllib.request.urlopen(request, timeout=float(sys.argv[2])).read().decode())
"""


@pytest.mark.docker
def test_sandboxed_container_gets_a_scripted_completion(docker_client, tmp_path):
    _, host_ip = gateway_network()
    config = SandboxConfig(image=ensure_image("base"), network="gateway", lifetime_seconds=300)
    with GatewayServer(GatewayConfig(host=host_ip, ledger_dir=tmp_path)) as gw, Sandbox.provision(config) as box:
        gw.register_attempt("box1", model="scripted/gateway-test")
        box.write_file("/tmp/client.py", CLIENT.encode())
        result = box.exec(["python3", "/tmp/client.py", gw.base_url("box1", "executor", host=host_ip), "20"], timeout_s=60)
        outside = box.exec(["python3", "/tmp/client.py", "http://1.1.1.1/v1", "3"], timeout_s=60)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["choices"][0]["message"]["content"] == "pong"
    [record] = read_ledger(gw.ledger_path("box1"))
    assert (record.attempt_id, record.model, record.input_tokens) == ("box1", "scripted/gateway-test", 10)
    assert outside.exit_code != 0  # the internal network reaches the gateway and nothing else
