"""Set-up captured once per input hash, against the real engine: the second attempt starts from
the first one's captured set-up (its oneshot install did not run again, its background service is
live again, the claw sees the same world), nothing an attempt does reaches the cache, a changed
service file captures anew, a capture killed before it was published is never reused, and a set-up
that leaves a process running is not cached at all."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from clawmark.runtime.engine import shared_client
from clawmark.settings import PROJECT_ROOT
from clawmark.taskenv.setup_cache import REPOSITORY

from tests.support.taskenv_fixtures import as_executor, as_root, make_package, task_env
from tests.support.taskenv_fixtures import workstation  # noqa: F401 - fixture

pytestmark = pytest.mark.docker

INSTALL_SH = """set -e
mkdir -p /opt/tool
head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \\n' > /opt/tool/token
echo installed >> /opt/tool/runs
printf 'seeded by set-up\\n' > /tmp_workspace/seed.txt
"""
SERVICES = [{"name": "install", "start": "bash install.sh", "oneshot": True},
            {"name": "web", "start": "python3 -m http.server 18766 --directory /opt/tool"}]
WORLD = ("find /tmp_workspace /root/skills -xdev -path /tmp_workspace/clawbench/logs -prune -o -type f "
         "-exec md5sum {} + | sort; stat -c '%U %a %n' /tmp_workspace/seed.txt; cat /opt/tool/runs; id -un")


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAWMARK_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _package(root, install=INSTALL_SH, services=SERVICES, task_id="task_setup_cache"):
    return make_package(root, task_id, {"services/install/install.sh": install, "sources/notes.txt": "hello\n",
                                      "services/web/index.html": "<p>the web service's own folder</p>\n"},
                        services=services)


def _attempt(package, image, logs, **config):
    return task_env(package, image, logs, cache_setup=True, **config)


def _tags() -> list[str]:
    return [t for image in shared_client().api.images(name=REPOSITORY) for t in image.get("RepoTags") or []]


def _drop(key):
    for tag in _tags():
        if key and (tag == f"{REPOSITORY}:{key}" or tag.startswith(f"{REPOSITORY}:partial-{key}-")):
            shared_client().images.remove(tag, force=True)


def test_the_second_attempt_starts_from_the_first_ones_setup_and_sees_the_same_world(workstation, home, tmp_path):
    package = _package(tmp_path / "pkg")
    first = _attempt(package, workstation, tmp_path / "logs1", claw_env={"CLAW_ONLY": "attempt-1"})
    try:
        with first as sandbox:
            key = first.setup_state["setup_cache_key"]
            assert first.setup_state["setup_cache"] == "captured"
            token = as_executor(sandbox, "cat /opt/tool/token").stdout
            assert len(token) == 24
            world = as_executor(sandbox, WORLD).stdout
            assert as_executor(sandbox, "curl -s localhost:18766/token").stdout == token  # live in this container
            assert as_executor(sandbox, "echo $CLAW_ONLY").stdout.strip() == "attempt-1"
            # what the claw does never reaches the cache
            as_executor(sandbox, "echo mine > /tmp_workspace/results/claw.txt; echo x >> /opt/tool/runs")
        image = shared_client().images.get(f"{REPOSITORY}:{key}")
        assert image.labels["clawmark.kind"] == "setup-cache" and image.labels["clawmark.setup_key"] == key
        assert not image.labels.get("clawmark.test")  # the capture's own labels are blanked
        assert not any(e.startswith("CLAW_ONLY=") for e in image.attrs["Config"]["Env"])  # never the claw's
        saved = json.loads((tmp_path / "logs1" / "taskenv.json").read_text())
        assert (saved["setup_cache"], saved["setup_cache_key"]) == ("captured", key)

        second = _attempt(package, workstation, tmp_path / "logs2")
        with second as sandbox:
            assert second.setup_state == {"setup_cache": "hit", "setup_cache_key": key}
            assert sandbox.image_id == image.id  # started from the capture, recorded as its base:
            assert second.image_id == shared_client().images.get(workstation).id
            assert as_executor(sandbox, "cat /opt/tool/token").stdout == token  # the install did not run again
            assert as_executor(sandbox, WORLD).stdout == world  # the same world, the claw's file not in it
            assert as_executor(sandbox, "curl -s localhost:18766/token").stdout == token
            assert as_executor(sandbox, "echo ${CLAW_ONLY:-unset}").stdout.strip() == "unset"
            assert as_executor(sandbox, "cat /tmp_workspace/seed.txt").stdout == "seeded by set-up\n"
        assert (tmp_path / "logs2" / "services" / "install.log").exists()  # the captured oneshot's log
    finally:
        _drop(first.setup_state["setup_cache_key"])


def test_a_changed_service_file_captures_anew(workstation, home, tmp_path):
    one = _attempt(_package(tmp_path / "a"), workstation, tmp_path / "logs-a")
    two = _attempt(_package(tmp_path / "b", INSTALL_SH + "echo v2 > /opt/tool/version\n"), workstation,
                   tmp_path / "logs-b")
    try:
        with one:
            pass
        with two as sandbox:
            assert as_executor(sandbox, "cat /opt/tool/version").stdout == "v2\n"
        assert one.setup_state["setup_cache"] == two.setup_state["setup_cache"] == "captured"
        assert one.setup_state["setup_cache_key"] != two.setup_state["setup_cache_key"]
    finally:
        _drop(one.setup_state["setup_cache_key"])
        _drop(two.setup_state["setup_cache_key"])


KILLED_CAPTURE = """
import sys
from pathlib import Path
from clawmark.catalog.package import load_task
from clawmark.taskenv import TaskEnv, TaskEnvConfig
env = TaskEnv(load_task(Path(sys.argv[1])), TaskEnvConfig(image=sys.argv[2], cache_setup=True), Path(sys.argv[3]))
with env:
    pass
"""


def test_a_capture_killed_before_it_was_published_is_never_reused(workstation, home, tmp_path):
    package = _package(tmp_path / "pkg", task_id="task_setup_killed")
    environ = {**os.environ, "CLAWMARK_FAILPOINT": "setup-capture-committed", "PYTHONPATH": str(PROJECT_ROOT)}
    killed = subprocess.run([sys.executable, "-c", KILLED_CAPTURE, str(package), workstation, str(tmp_path / "k")],
                            env=environ, capture_output=True, text=True, timeout=600)
    assert killed.returncode == -9, killed.stderr[-2000:]
    client = shared_client()
    partials = [t for t in _tags() if t.startswith(f"{REPOSITORY}:partial-")]
    assert partials, "the kill came after the commit: its partial image is there"
    key = partials[0].split("partial-", 1)[1].rsplit("-", 1)[0]
    for container in client.containers.list(all=True, filters={"label": f"clawmark.setup_key={key}"},
                                            ignore_removed=True):
        container.remove(force=True)  # the dead owner's capture container (a janitor's work)
    try:
        env = _attempt(package, workstation, tmp_path / "logs")
        with env as sandbox:
            assert env.setup_state == {"setup_cache": "captured", "setup_cache_key": key}
            assert as_root(sandbox, "cat /opt/tool/runs").stdout == "installed\n"
        left = _tags()
        assert f"{REPOSITORY}:{key}" in left and not [t for t in left if t.startswith(f"{REPOSITORY}:partial-{key}")]
    finally:
        _drop(key)


def test_a_setup_that_leaves_a_process_running_is_not_cached_and_still_runs(workstation, home, tmp_path):
    install = "setsid nohup sleep 600 > /dev/null 2>&1 < /dev/null &\necho started > /tmp/started\n"
    services = [{"name": "install", "start": "bash install.sh", "oneshot": True}]
    package = _package(tmp_path / "pkg", install, services, task_id="task_setup_daemon")
    states = []
    for n in (1, 2):
        env = _attempt(package, workstation, tmp_path / f"logs{n}")
        with env as sandbox:
            states.append(env.setup_state["setup_cache"])
            assert as_root(sandbox, "pgrep -f 'sleep 600' >/dev/null && cat /tmp/started").stdout == "started\n"
    assert states == ["off: a oneshot service left 1 process(es) running (sleep 600)"] * 2
    markers = list((home / "setup-cache").glob("*.off.json"))  # the key is remembered as not cacheable
    assert len(markers) == 1
    key = markers[0].name.split(".")[0]
    assert not [t for t in _tags() if key in t]  # and nothing of its capture was published


def test_captured_setups_are_pruned_least_recently_used_first_to_the_image_budget(workstation, home, tmp_path,
                                                                                 monkeypatch):
    """With a budget only one capture fits, the next task's capture prunes the older one (its
    attempt is over); the one just captured stays, and an attempt of the pruned task captures anew."""
    monkeypatch.setenv("CLAWMARK_IMAGE_BUDGET_GB", "0.000001")  # ~1 KB: any capture is over it
    keys = []
    try:
        for name in ("a", "b"):
            env = _attempt(_package(tmp_path / name, INSTALL_SH + f"echo {name} > /opt/tool/name\n"), workstation,
                           tmp_path / f"logs-{name}")
            with env:
                keys.append(env.setup_state["setup_cache_key"])
        assert f"{REPOSITORY}:{keys[1]}" in _tags() and f"{REPOSITORY}:{keys[0]}" not in _tags()
        again = _attempt(_package(tmp_path / "a2", INSTALL_SH + "echo a > /opt/tool/name\n"), workstation,
                         tmp_path / "logs-a2")
        with again:
            assert again.setup_state == {"setup_cache": "captured", "setup_cache_key": keys[0]}
    finally:
        for key in keys:
            _drop(key)
