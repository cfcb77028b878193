"""Network policies: `none` has nothing; `gateway` reaches a host server on the gateway IP
and nothing else (no DNS, no route out)."""

from __future__ import annotations

import http.server
import socket
import threading

import pytest

from clawmark.runtime.images import ensure_image
from clawmark.runtime.network import GATEWAY_HOSTNAME, gateway_network
from clawmark.runtime.sandbox import Sandbox, SandboxConfig

pytestmark = pytest.mark.docker

RESOLVE = "python3 -c 'import socket; print(socket.gethostbyname(\"deb.debian.org\"))'"
FETCH = "python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "
CONNECT = "python3 -c 'import socket, sys; socket.create_connection((sys.argv[1], 80), timeout=3); print(\"connected\")' "


class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's naming
        body = b"hello from the host"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def image(docker_client) -> str:
    return ensure_image("base")


@pytest.fixture
def host_server():
    _name, host_ip = gateway_network()
    server = http.server.ThreadingHTTPServer((host_ip, 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield host_ip, server.server_address[1]
    server.shutdown()
    server.server_close()


def config(image: str, network: str) -> SandboxConfig:
    return SandboxConfig(image=image, network=network, labels={"clawmark.test": "runtime"})


def test_network_none_cannot_resolve(image):
    with Sandbox.provision(config(image, "none")) as sb:
        result = sb.exec(RESOLVE, timeout_s=30)
    assert result.exit_code != 0 and "gaierror" in result.stderr


def test_gateway_network_reaches_the_host_server_only(image, host_server):
    host_ip, port = host_server
    outside_ip = socket.gethostbyname("deb.debian.org")  # reachable from this host
    with Sandbox.provision(config(image, "gateway")) as sb:
        by_ip = sb.exec(FETCH + f"http://{host_ip}:{port}/", timeout_s=30)
        by_name = sb.exec(FETCH + f"http://{GATEWAY_HOSTNAME}:{port}/", timeout_s=30)
        dns = sb.exec(RESOLVE, timeout_s=30)
        outside = sb.exec(CONNECT + outside_ip, timeout_s=30)
    assert by_ip.stdout == "hello from the host\n" and by_name.stdout == "hello from the host\n"
    assert dns.exit_code != 0 and "gaierror" in dns.stderr
    assert outside.exit_code != 0 and "connected" not in outside.stdout


def test_bridge_network_resolves_names(image):
    with Sandbox.provision(config(image, "bridge")) as sb:
        result = sb.exec(RESOLVE, timeout_s=30)
    assert result.exit_code == 0 and result.stdout.count(".") == 3


def test_gateway_network_is_internal_and_stable(docker_client):
    first, second = gateway_network(), gateway_network()
    network = docker_client.networks.get(first[0])
    assert first == second and network.attrs["Internal"] is True
