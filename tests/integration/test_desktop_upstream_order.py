"""An upstream-layout GUI task's container is set up in upstream's order (docs/upstream-parity.md,
*Order of set-up*): the desktop is up before its services run, as upstream's GUI set-ups expect
(105_33's restarts Xvfb :99 itself), and the desktop's processes, services and the executor get
upstream's accessibility variables."""

from __future__ import annotations

import pytest

from clawmark.catalog.package import load_task
from clawmark.taskenv import TaskEnv, TaskEnvConfig
from clawmark.taskenv.config import A11Y_ENV
from clawmark.taskenv.headed import HeadedRun
from tests.support.desktop_fixtures import desktop_image  # noqa: F401 - fixture
from tests.support.taskenv_fixtures import EVAL_RULE, as_executor
from tests.integration.test_taskenv_upstream_parity import TASK_ID, make_upstream_package

pytestmark = pytest.mark.docker
SEEN = "/tmp_workspace/clawbench/seen-by-service.txt"
CHECK = f"""if xdpyinfo -display :99 >/dev/null 2>&1; then echo display-up; else echo display-down; fi > {SEEN}
echo "NO_AT_BRIDGE=$NO_AT_BRIDGE GTK_MODULES=$GTK_MODULES QT_ACCESSIBILITY=$QT_ACCESSIBILITY" >> {SEEN}
"""


def test_the_desktop_is_up_before_services_with_the_a11y_variables(desktop_image, tmp_path):  # noqa: F811
    files = {"services/gui-setup/check.sh": CHECK,
             "references/eval_rule.md": EVAL_RULE.format(task_id=TASK_ID, secret_line="hidden")}
    task = load_task(make_upstream_package(tmp_path, files, skills=[], headed=True, services=[
        {"name": "gui-setup", "path": "gui-setup", "start": "bash check.sh", "oneshot": True}]))
    headed = HeadedRun(task, tmp_path / "artifacts")
    assert headed.before_services() == [headed.start_desktop]
    env = TaskEnv(task, TaskEnvConfig(image=desktop_image, network_policy="none", labels={"clawmark.test": "desktop"}),
                  tmp_path / "logs", before_services=headed.before_services())
    with env as sandbox:
        seen = sandbox.read_file(SEEN).decode().splitlines()
        expected = " ".join(f"{name}={value}" for name, value in A11Y_ENV.items())
        assert seen == ["display-up", expected]
        started_in = headed.desktop_in
        headed.begin(sandbox)  # after the services: the desktop already up is not started again
        assert headed.desktop_in == started_in == sandbox.container_id
        assert (tmp_path / "artifacts" / "desktop.json").is_file()
        shown = as_executor(sandbox, "echo $GTK_MODULES $QT_ACCESSIBILITY; xdpyinfo -display :99 | grep -c dimensions")
        assert shown.stdout.split() == ["gail:atk-bridge", "1", "1"]


def test_a_desktop_first_setup_is_captured_once_and_each_attempt_gets_its_own_desktop(desktop_image, tmp_path,
                                                                                      monkeypatch):  # noqa: F811
    """The GUI set-up runs once, with the desktop up, in the capture; each attempt's container
    starts from it and brings its own desktop up again (the capture's X lock does not stop it)."""
    from clawmark.runtime.engine import shared_client
    from clawmark.taskenv.setup_cache import REPOSITORY

    monkeypatch.setenv("CLAWMARK_HOME", str(tmp_path / "home"))
    files = {"services/gui-setup/check.sh": CHECK + "cat /proc/sys/kernel/random/uuid > /opt/gui-setup-ran\n",
             "references/eval_rule.md": EVAL_RULE.format(task_id=TASK_ID, secret_line="hidden")}
    task = load_task(make_upstream_package(tmp_path, files, skills=[], headed=True, services=[
        {"name": "gui-setup", "path": "gui-setup", "start": "bash check.sh", "oneshot": True}]))
    states, ran = [], set()
    try:
        for n in (1, 2):
            headed = HeadedRun(task, tmp_path / f"artifacts{n}")
            env = TaskEnv(task, TaskEnvConfig(image=desktop_image, network_policy="none", cache_setup=True,
                                              labels={"clawmark.test": "desktop"}),
                          tmp_path / f"logs{n}", before_services=headed.before_services())
            with env as sandbox:
                states.append(env.setup_state["setup_cache"])
                assert sandbox.read_file(SEEN).decode().splitlines()[0] == "display-up"  # as the capture saw it
                assert headed.desktop_in == sandbox.container_id  # this attempt's own desktop
                assert as_executor(sandbox, "xdpyinfo -display :99 | grep -c dimensions").stdout.strip() == "1"
                ran.add(sandbox.read_file("/opt/gui-setup-ran"))
        assert states == ["captured", "hit"] and len(ran) == 1
    finally:
        key = env.setup_state["setup_cache_key"]
        if key:
            shared_client().images.remove(f"{REPOSITORY}:{key}", force=True)
