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
        outside = _reach_a_server_on_another_network(box)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["choices"][0]["message"]["content"] == "pong"
    [record] = read_ledger(gw.ledger_path("box1"))
    assert (record.attempt_id, record.model, record.input_tokens) == ("box1", "scripted/gateway-test", 10)
    assert outside == (0, 1)  # the server answers on its own network; the gateway network cannot reach it


def _reach_a_server_on_another_network(box) -> tuple[int, int]:
    """(exit code from the server's own container, from `box`): a server of ours in a container on
    Docker's bridge stands in for "outside", so no packet leaves this machine."""
    server_config = SandboxConfig(image=ensure_image("base"), network="bridge", lifetime_seconds=300)
    with Sandbox.provision(server_config) as server:
        server.exec("nohup python3 -m http.server 8765 --bind 0.0.0.0 >/tmp/http.log 2>&1 &", timeout_s=30)
        address = _first_ip(server.container_id)
        probe = f"http://{address}:8765/"
        probe_code = "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=3)"
        own = server.exec(["sh", "-c", f"for i in 1 2 3 4 5 6 7 8 9 10; do python3 -c '{probe_code}' {probe} && exit 0; sleep 0.5; done; exit 1"], timeout_s=60)
        other = box.exec(["python3", "-c", probe_code, probe], timeout_s=60)
    return own.exit_code, min(other.exit_code, 1)


def _first_ip(container_id: str) -> str:
    import docker

    networks = docker.from_env().containers.get(container_id).attrs["NetworkSettings"]["Networks"]
    return next(n["IPAddress"] for n in networks.values() if n["IPAddress"])
