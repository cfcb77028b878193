"""What the executor's container holds and reaches: no hidden file, reference content, secret
or mount of the package anywhere in it; the network policies; the gateway in every policy."""

from __future__ import annotations

import http.server
import socket
import threading

import pytest

from clawmark.catalog.package import load_task
from clawmark.runtime.network import GATEWAY_HOSTNAME, gateway_network, open_network
from clawmark.runtime.registry_proxy import registry_proxy
from clawmark.taskenv import TaskEnv, TaskEnvConfig

from tests.support.taskenv_fixtures import CLOSED_LOOP, as_executor, as_root, make_package, task_env
from tests.support.taskenv_fixtures import workstation  # noqa: F401 - fixture

pytestmark = pytest.mark.docker

RUBRIC_LINE = "Zebra-7f3a: the total must equal the figure in answer.json"
ANSWER = '{"total": "Quokka-91c2"}'
PRE_EXEC_MARK = "Narwhal-4be8 pre_exec body"
SECRET_VALUE = "Ibis-0d55-secret-token"
BUNDLED_LINE = "Settled rows: North 264.25, East 340.25, South 140.50, West 225.00"
# Every regular file of the container's own filesystem (-xdev leaves out /proc, /sys, /dev).
GREP_FS = ("find / -xdev -type f -print0 | xargs -0 grep -lsF "
           + " ".join(f"-e '{s}'" for s in (RUBRIC_LINE, "Quokka-91c2", PRE_EXEC_MARK, SECRET_VALUE, BUNDLED_LINE))
           + "; echo grep-done")
FIND_HIDDEN = ("find / -xdev \\( -name eval_rule.md -o -name answer.json -o -name .privacy -o -name prep.py "
               "-o -name references \\) -print 2>/dev/null; echo find-done")


@pytest.fixture
def hidden_package(tmp_path, monkeypatch):
    monkeypatch.setenv("HIDDEN_TOKEN", SECRET_VALUE)
    package = make_package(tmp_path, "hidden_task", secret_line=RUBRIC_LINE, files={
        "references/answer.json": ANSWER,
        "ops/prep.py": f"# {PRE_EXEC_MARK}\nimport os\nassert os.environ['HIDDEN_TOKEN']\n",
        ".privacy": "HIDDEN_TOKEN\n",
        "sources/data.csv": "a,b\n1,2\n",
        "skills/helper/SKILL.md": "Use the helper.\n",
        "services/api/server.py": "import http.server as h\nh.ThreadingHTTPServer(('127.0.0.1', 18990), h.SimpleHTTPRequestHandler).serve_forever()\n",
    }, references=["references/eval_rule.md", "references/answer.json"], pre_exec=["ops/prep.py"],
        skills=["helper"], services=[{"name": "api", "start": "python3 server.py --port 18990"}])
    return package


def test_executor_container_holds_no_hidden_file_content_secret_or_mount(workstation, hidden_package, tmp_path, docker_client):
    task = load_task(hidden_package)
    assert task.privacy_vars == ["HIDDEN_TOKEN"]
    # A link to the rubric appearing after the catalog checked the package (which refuses such
    # links): the runtime's own filter must still keep it out.
    (hidden_package / "sources" / "rubric_link.md").symlink_to("../references/eval_rule.md")
    config = TaskEnvConfig(image=workstation, labels={"clawmark.test": "taskenv"})
    with TaskEnv(task, config, tmp_path / "logs") as sandbox:
        turn = as_executor(sandbox, "ls /tmp_workspace/clawbench/sources; cat /root/skills/helper/SKILL.md")
        found = as_root(sandbox, GREP_FS)
        names = as_root(sandbox, FIND_HIDDEN)
        environ = as_root(sandbox, "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done 2>/dev/null; echo env-done")
        mounts = as_root(sandbox, "cat /proc/self/mounts")
        attrs = docker_client.containers.get(sandbox.container_id).attrs
    assert turn.stdout == "data.csv\nUse the helper.\n"
    assert found.stdout == "grep-done\n" and names.stdout == "find-done\n"
    assert environ.stdout.endswith("env-done\n") and "HIDDEN_TOKEN" not in environ.stdout
    assert SECRET_VALUE not in environ.stdout and SECRET_VALUE not in str(attrs["Config"]["Env"])
    assert attrs["Mounts"] == [] and str(hidden_package) not in mounts.stdout


def test_bundled_rubric_text_appears_nowhere_in_the_container(workstation, tmp_path):
    task_dir = CLOSED_LOOP / "en_101_sales_total"
    assert BUNDLED_LINE in (task_dir / "references" / "eval_rule.md").read_text()
    with task_env(task_dir, workstation, tmp_path / "logs", network_policy="none") as sandbox:
        found = as_root(sandbox, GREP_FS)
        shipped = as_executor(sandbox, "ls /tmp_workspace/clawbench/sources /root/skills")
    assert found.stdout == "grep-done\n"
    assert "sales_march.csv" in shipped.stdout and "csv-summary" in shipped.stdout


# ---- network policies -------------------------------------------------------------------

RESOLVE = "python3 -c 'import socket; print(socket.gethostbyname(\"deb.debian.org\"))'"
CONNECT = "python3 -c 'import socket, sys; socket.create_connection((sys.argv[1], 80), timeout=3); print(\"connected\")' "


class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's naming
        body = b"gateway here"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def gateway_stub(docker_client):
    """A host server where the model gateway listens (the internal network's host address)."""
    _name, host_ip = gateway_network()
    server = http.server.ThreadingHTTPServer((host_ip, 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def probe_network(sandbox, port: int) -> dict:
    outside_ip = socket.gethostbyname("deb.debian.org")
    code = "curl -s -o /dev/null --max-time 20 -w '%{http_code} %{http_connect}' "
    return {
        "gateway": as_executor(sandbox, f"curl -s --max-time 10 http://{GATEWAY_HOSTNAME}:{port}/").stdout,
        "dns": as_executor(sandbox, RESOLVE).stdout.count("."),
        "outside": as_executor(sandbox, CONNECT + outside_ip).stdout,
        "pypi": as_executor(sandbox, code + "https://pypi.org/simple/six/").stdout,
        "other": as_executor(sandbox, code + "https://not-a-registry.invalid/").stdout,
        # the proxy found by hand: it serves registered registries-only containers only
        "by_hand": as_executor(sandbox, code + f"-x http://{GATEWAY_HOSTNAME}:{registry_proxy()[1]} "
                                              "https://pypi.org/simple/six/").stdout,
    }


# policy -> (DNS answers, direct connection out, PyPI over HTTPS, a non-registry host,
#            PyPI through the proxy named by hand); 403 = refused by the proxy
EXPECTED = {
    "none": (0, "", "000 000", "000 000", "000 403"),
    "registries-only": (0, "", "200 200", "000 403", "200 200"),
    "full": (3, "connected\n", "200 000", "000 000", "000 403"),
}


@pytest.mark.parametrize("policy", ["none", "registries-only", "full"])
def test_network_policy_and_the_gateway(workstation, tmp_path, gateway_stub, policy, docker_client):
    package = make_package(tmp_path, f"net_{policy.replace('-', '_')}")
    with task_env(package, workstation, tmp_path / "logs", network_policy=policy) as sandbox:
        seen = probe_network(sandbox, gateway_stub)
        networks = docker_client.containers.get(sandbox.container_id).attrs["NetworkSettings"]["Networks"]
    assert seen["gateway"] == "gateway here"
    assert (seen["dns"], seen["outside"], seen["pypi"], seen["other"], seen["by_hand"]) == EXPECTED[policy]
    assert list(networks) == ([open_network()[0]] if policy == "full" else [gateway_network()[0]])
