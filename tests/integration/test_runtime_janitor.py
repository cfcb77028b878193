"""The janitor removes sandboxes whose owner was SIGKILLed, and leaves live owners alone."""

from __future__ import annotations

import signal
import subprocess
import sys
import uuid

import pytest

from clawmark.runtime.images import ensure_image
from clawmark.runtime.janitor import reap
from clawmark.runtime.sandbox import Sandbox, SandboxConfig

pytestmark = pytest.mark.docker

ORPHAN_MAKER = """
import sys, time
from clawmark.runtime.sandbox import Sandbox, SandboxConfig
sb = Sandbox.provision(SandboxConfig(image=sys.argv[1], labels={"clawmark.test": sys.argv[2]}))
print(sb.container_id, flush=True)
time.sleep(600)
"""


def test_orphan_of_a_killed_process_is_reaped(docker_client):
    import docker

    token = uuid.uuid4().hex
    proc = subprocess.Popen([sys.executable, "-c", ORPHAN_MAKER, ensure_image("base"), token],
                            stdout=subprocess.PIPE, text=True)
    container_id = proc.stdout.readline().strip()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert docker_client.containers.get(container_id).status == "running"

    removed = reap(older_than_s=None, label_selector={"clawmark.test": token})

    assert removed == [container_id]
    with pytest.raises(docker.errors.NotFound):
        docker_client.containers.get(container_id)


def test_live_owner_is_kept_unless_too_old(docker_client):
    token = uuid.uuid4().hex
    config = SandboxConfig(image=ensure_image("base"), labels={"clawmark.test": token})
    with Sandbox.provision(config) as sb:
        kept = reap(older_than_s=3600, label_selector=f"clawmark.test={token}")
        assert docker_client.containers.get(sb.container_id).status == "running"
        reaped = reap(older_than_s=-1, label_selector=f"clawmark.test={token}")
    assert kept == [] and reaped == [sb.container_id]


def test_sandbox_left_up_is_removed_when_the_interpreter_exits(docker_client):
    import docker

    token = uuid.uuid4().hex
    script = ORPHAN_MAKER.replace("time.sleep(600)", "raise SystemExit(3)")
    proc = subprocess.run([sys.executable, "-c", script, ensure_image("base"), token],
                          capture_output=True, text=True, timeout=120)
    container_id = proc.stdout.strip()
    assert proc.returncode == 3 and container_id
    with pytest.raises(docker.errors.NotFound):
        docker_client.containers.get(container_id)
