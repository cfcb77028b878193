"""Services of a task package against the real engine: oneshot seeds, failures with their log
saved, a oneshot past its deadline, a background service that dies or never listens."""

from __future__ import annotations

import pytest

from clawmark.taskenv import ServiceFailed

from tests.support.taskenv_fixtures import as_executor, make_package, task_env
from tests.support.taskenv_fixtures import workstation  # noqa: F401 - fixture

pytestmark = pytest.mark.docker

SEED = """set -e
mkdir -p /tmp_workspace/clawbench/game
mkfifo /tmp_workspace/clawbench/game/moves.fifo
echo "seeded by $(id -un) from $(pwd)" > /tmp_workspace/clawbench/game/state.txt
sqlite3 /tmp_workspace/clawbench/store.db "create table t(x); insert into t values (42);"
"""


def package_with(tmp_path, task_id: str, services: list[dict], files: dict[str, str]):
    return make_package(tmp_path, task_id, files=files, services=services)


def assert_no_container_left(docker_client, task_id: str) -> None:
    left = docker_client.containers.list(all=True, filters={"label": f"clawmark.task={task_id}"}, ignore_removed=True)
    assert left == []


def test_oneshot_seeds_what_the_executor_can_use(workstation, tmp_path):
    package = package_with(tmp_path, "svc_seed", [{"name": "seed", "start": "bash seed.sh", "oneshot": True}],
                           {"services/seed/seed.sh": SEED})
    with task_env(package, workstation, tmp_path / "logs", network_policy="none") as sandbox:
        state = as_executor(sandbox, "cat /tmp_workspace/clawbench/game/state.txt")
        store = as_executor(sandbox, "sqlite3 /tmp_workspace/clawbench/store.db 'insert into t values (7); select sum(x) from t'")
        fifo = as_executor(sandbox, "test -p /tmp_workspace/clawbench/game/moves.fifo && test -w "
                                    "/tmp_workspace/clawbench/game/moves.fifo && echo writable")
    assert state.stdout == "seeded by root from /opt/clawbench/services/seed\n"
    assert store.stdout.strip() == "49" and fifo.stdout == "writable\n"


def test_failing_oneshot_raises_with_its_log_saved(workstation, tmp_path, docker_client):
    package = package_with(tmp_path, "svc_fail", [{"name": "installer", "start": "bash install.sh", "oneshot": True}],
                           {"services/installer/install.sh": "echo fetching the fixture\necho no such mirror >&2\nexit 3\n"})
    with pytest.raises(ServiceFailed) as caught:
        with task_env(package, workstation, tmp_path / "logs", network_policy="none"):
            pass
    err = caught.value
    assert err.service == "installer" and "exited with code 3" in str(err)
    assert err.log == tmp_path / "logs" / "services" / "installer.log"
    assert err.log.read_text() == "fetching the fixture\nno such mirror\n"
    assert_no_container_left(docker_client, "svc_fail")


def test_oneshot_past_its_deadline_is_killed_and_reported(workstation, tmp_path, docker_client):
    package = package_with(tmp_path, "svc_hang", [{"name": "stuck", "start": "echo waiting; sleep 600", "oneshot": True}],
                           {"services/stuck/README": "waits forever\n"})
    with pytest.raises(ServiceFailed) as caught:
        with task_env(package, workstation, tmp_path / "logs", network_policy="none", service_timeout_s=3):
            pass
    assert "ran past its 3s timeout" in str(caught.value)
    assert caught.value.log.read_text() == "waiting\n"
    assert_no_container_left(docker_client, "svc_hang")


def test_background_service_that_never_listens_ends_clearly(workstation, tmp_path, docker_client):
    start = "python3 -c 'import time; print(\"booting\", flush=True); time.sleep(600)' --port 18999"
    package = package_with(tmp_path, "svc_deaf", [{"name": "api", "start": start}], {"services/api/README": "x\n"})
    with pytest.raises(ServiceFailed) as caught:
        with task_env(package, workstation, tmp_path / "logs", network_policy="none", service_ready_s=3):
            pass
    assert "never became ready: nothing listened on port(s) 18999 within 3s" in str(caught.value)
    assert caught.value.log.read_text() == "booting\n"
    assert_no_container_left(docker_client, "svc_deaf")


def test_background_service_that_dies_is_reported(workstation, tmp_path):
    package = package_with(tmp_path, "svc_dies", [{"name": "api", "start": "python3 server.py --port 18998"}],
                           {"services/api/server.py": "import sys\nprint('bad config')\nsys.exit(5)\n"})
    with pytest.raises(ServiceFailed) as caught:
        with task_env(package, workstation, tmp_path / "logs", network_policy="none"):
            pass
    assert "exited with code 5 before the first turn" in str(caught.value)
    assert caught.value.log.read_text() == "bad config\n"


def test_background_service_keeps_running_and_its_log_is_saved(workstation, tmp_path):
    start = "python3 -m http.server 18997 --bind 127.0.0.1"
    package = package_with(tmp_path, "svc_http", [{"name": "web", "start": start}],
                           {"services/web/index.html": "hello from the service\n"})
    with task_env(package, workstation, tmp_path / "logs", network_policy="none") as sandbox:
        page = as_executor(sandbox, "curl -s http://127.0.0.1:18997/index.html")
    assert page.stdout == "hello from the service\n"
    assert "GET /index.html" in (tmp_path / "logs" / "services" / "web.log").read_text()
