"""Least privilege of the containers, on the real engine: one attempt's container cannot reach
another's; no raw sockets; capabilities, no-new-privileges and limits as docs/security.md says;
a host service listening on all interfaces is refused while the gateway answers; the engine's
socket is never mounted."""

from __future__ import annotations

import http.server
import threading

import pytest

from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.runtime.images import ensure_image
from clawmark.runtime.network import GATEWAY_HOSTNAME, gateway_network, open_network
from clawmark.runtime.privileges import LEAST_CAPS, NO_NEW_PRIVILEGES
from clawmark.runtime.sandbox import Sandbox, SandboxConfig

from tests.support.taskenv_fixtures import as_executor, as_root, make_package, task_env
from tests.support.taskenv_fixtures import workstation  # noqa: F401 - fixture

pytestmark = pytest.mark.docker

LABEL = {"clawmark.test": "privilege"}
HTTP_CODE = "curl -s -o /dev/null --max-time 5 -w '%{http_code}' "
RAW_SOCKET = ("python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP); "
              "print(\"raw socket open\")'")
SERVE = "nohup python3 -m http.server 8765 --bind 0.0.0.0 >/tmp/http.log 2>&1 & sleep 0.2; echo started"
SELF_PROBE = ("for i in $(seq 20); do curl -s -o /dev/null -w '%{http_code}' --max-time 2 http://127.0.0.1:8765/ "
              "| grep -q 200 && echo up && exit 0; sleep 0.25; done; exit 1")


def cap_mask(names) -> int:
    numbers = {"CHOWN": 0, "DAC_OVERRIDE": 1, "FOWNER": 3, "FSETID": 4, "KILL": 5, "SETGID": 6, "SETUID": 7}
    return sum(1 << numbers[name] for name in names)


def status_field(sandbox, field: str, user: str | None = None) -> str:
    status = sandbox.exec(["cat", "/proc/self/status"], timeout_s=30, user=user).stdout
    return next(line.split(":", 1)[1].strip() for line in status.splitlines() if line.startswith(field + ":"))


def address_on(docker_client, sandbox) -> str:
    networks = docker_client.containers.get(sandbox.container_id).attrs["NetworkSettings"]["Networks"]
    return next(n["IPAddress"] for n in networks.values() if n.get("IPAddress"))


class Secretive(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's naming
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def all_interfaces_service():
    """A host service listening on every interface (as a Prefect API or a database might)."""
    server = http.server.ThreadingHTTPServer(("0.0.0.0", 0), Secretive)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("policy", ["none", "full"])
def test_one_attempts_container_cannot_reach_anothers(workstation, tmp_path, docker_client, policy):
    package = make_package(tmp_path, f"reach_{policy}")
    with task_env(package, workstation, tmp_path / "a", network_policy=policy, labels={**LABEL, "clawmark.attempt": "A"}) as a, \
            task_env(package, workstation, tmp_path / "b", network_policy=policy, labels={**LABEL, "clawmark.attempt": "B"}) as b:
        assert as_executor(b, SERVE).stdout.strip() == "started"
        own = as_executor(b, SELF_PROBE)
        across = as_executor(a, HTTP_CODE + f"http://{address_on(docker_client, b)}:8765/")
    assert own.stdout.strip() == "up"  # B's server answers inside B
    assert across.stdout == "000"      # and never to A, on the same network


def test_no_raw_sockets_and_the_capability_set_is_the_least_one(workstation, tmp_path, docker_client):
    with task_env(make_package(tmp_path, "caps"), workstation, tmp_path / "logs", network_policy="none", labels=LABEL) as box:
        raw_root = as_root(box, RAW_SOCKET)
        raw_executor = as_executor(box, RAW_SOCKET)
        root_caps = int(status_field(box, "CapEff", user="0"), 16)
        executor_caps = int(status_field(box, "CapEff"), 16)
        no_new_privs = status_field(box, "NoNewPrivs")
        executor_id = as_executor(box, "id -u").stdout.strip()
        host = docker_client.containers.get(box.container_id).attrs["HostConfig"]
    assert "PermissionError" in raw_root.stderr and "raw socket open" not in raw_root.stdout
    assert "PermissionError" in raw_executor.stderr
    assert root_caps == cap_mask(LEAST_CAPS) and executor_caps == 0
    assert no_new_privs == "1" and executor_id == "1000"
    assert host["CapDrop"] == ["ALL"] and sorted(host["CapAdd"]) == sorted(LEAST_CAPS)
    assert NO_NEW_PRIVILEGES in host["SecurityOpt"] and host["Privileged"] is False
    assert host["PidsLimit"] > 0 and host["Memory"] > 0 and host["NanoCpus"] > 0
    assert host["Memory"] == host["MemorySwap"]


def test_swebench_evaluation_keeps_the_harness_grants(docker_client):
    config = SandboxConfig(image=ensure_image("base"), privileges="swebench-harness", cap_add=["SYS_ADMIN"],
                           network="none", labels=LABEL, lifetime_seconds=120)
    with Sandbox.provision(config) as box:
        host = docker_client.containers.get(box.container_id).attrs["HostConfig"]
        raw = box.exec(RAW_SOCKET, timeout_s=30)
    assert host["CapAdd"] == ["SYS_ADMIN"] and not host["CapDrop"] and host["Privileged"] is False
    assert not host.get("SecurityOpt") and raw.stdout.strip() == "raw socket open"  # Docker's defaults, NET_RAW included


@pytest.mark.parametrize("policy", ["none", "registries-only", "full"])
def test_a_host_service_on_all_interfaces_is_refused_while_the_gateway_answers(
        workstation, tmp_path, all_interfaces_service, policy):
    gateway_ip = gateway_network()[1]
    host_addresses = {gateway_ip, open_network()[1], *_docker0_address()}
    with GatewayServer(GatewayConfig(host="127.0.0.1", also_hosts=[gateway_ip], ledger_dir=tmp_path)) as gateway, \
            task_env(make_package(tmp_path, f"host_{policy.replace('-', '_')}"), workstation, tmp_path / "logs",
                     network_policy=policy, labels=LABEL) as box:
        seen_by_host = _http_code_from_host(gateway_ip, all_interfaces_service)
        gateway_code = as_executor(box, HTTP_CODE + f"http://{GATEWAY_HOSTNAME}:{gateway.port}/healthz").stdout
        service_codes = {ip: as_executor(box, f"{HTTP_CODE} --noproxy '*' http://{ip}:{all_interfaces_service}/").stdout
                         for ip in sorted(host_addresses)}
    assert seen_by_host == 200      # the service is up on those addresses
    assert gateway_code == "200"    # the gateway, bound to the isolated network's address, answers
    assert service_codes == {ip: "000" for ip in sorted(host_addresses)}


def test_an_outside_name_fails_after_one_short_try_on_the_isolated_network():
    config = SandboxConfig(image=ensure_image("base"), network="gateway", labels=LABEL, lifetime_seconds=120)
    with Sandbox.provision(config) as box:
        resolv = box.exec("cat /etc/resolv.conf", timeout_s=30).stdout
        lookup = box.exec("getent hosts pypi.org", timeout_s=60)
    assert "timeout:1 attempts:1" in resolv, resolv  # Docker's default is 5 s x 2 tries, per address family
    assert lookup.exit_code == 2  # not found: the isolated network has no way out


def test_the_engine_socket_is_never_mounted(docker_client):
    before = {c.id for c in docker_client.containers.list(all=True, filters={"label": "clawmark.test=privilege"},
                                                          ignore_removed=True)}
    for source in ("/var/run/docker.sock", "/run/docker.sock", "/var/run", "/"):
        with pytest.raises(ValueError, match="engine's socket"):
            Sandbox.provision(SandboxConfig(image=ensure_image("base"), labels=LABEL,
                                            volumes={source: {"bind": "/mnt/engine", "mode": "ro"}}))
    after = {c.id for c in docker_client.containers.list(all=True, filters={"label": "clawmark.test=privilege"},
                                                         ignore_removed=True)}
    # refused before anything was created (another test's container of the label may end meanwhile)
    assert after <= before
    for container in docker_client.containers.list(filters={"label": "clawmark.managed=true"}, ignore_removed=True):
        sources = [m.get("Source", "") for m in container.attrs.get("Mounts", [])]
        assert not any(s.endswith("docker.sock") for s in sources), container.name


def _docker0_address() -> list[str]:
    try:
        import docker

        network = docker.from_env().networks.get("bridge")
    except Exception:  # noqa: BLE001 - an engine without the default bridge has nothing to probe
        return []
    return [c["Gateway"] for c in network.attrs["IPAM"]["Config"] if c.get("Gateway")]


def _http_code_from_host(ip: str, port: int) -> int:
    import httpx

    return httpx.get(f"http://{ip}:{port}/", timeout=5).status_code



def test_the_janitor_reaps_the_firewall_chain_of_a_removed_bridge(docker_client):
    import subprocess

    from clawmark.runtime import host_firewall, janitor
    from clawmark.runtime.network import NO_ICC, bridge_name

    network = docker_client.networks.create("clawmark-test-reap", driver="bridge", internal=True, options=NO_ICC,
                                            labels={"clawmark.test": "privilege"})
    chain = host_firewall.chain_name(bridge_name(network))
    try:
        host_firewall.guard_bridge(bridge_name(network), gateway_network()[1])
        assert chain in subprocess.run(["iptables", "-S", "INPUT"], capture_output=True, text=True).stdout
    finally:
        network.remove()
    janitor.reap(label_selector="clawmark.test=privilege-none")
    assert chain not in subprocess.run(["iptables", "-S"], capture_output=True, text=True).stdout
    assert chain not in host_firewall.reap_stale_chains()  # already gone: nothing left to remove
