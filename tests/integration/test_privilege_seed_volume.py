"""Seeding a claw's volume runs a short container outside the Sandbox: it gets the same least
privileges as every sandbox (all capabilities dropped but the least set, no-new-privileges), and
a seeding whose check fails leaves no volume behind."""

from __future__ import annotations

import uuid

import pytest

from clawmark.claws.base import ClawError
from clawmark.claws.volumes import _seed
from clawmark.runtime.images import ensure_image

pytestmark = pytest.mark.docker
LEAST_SET_MASK = "00000000000000fb"  # CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID: bits 0 1 3 4 5 6 7
HAS_LEAST_PRIVILEGES = (f"grep -q 'CapEff:[[:space:]]*{LEAST_SET_MASK}$' /proc/self/status && "
                        "grep -q 'NoNewPrivs:[[:space:]]*1$' /proc/self/status")
HAS_NET_RAW = "test $(( 0x$(awk '/CapEff/ {print $2}' /proc/self/status) >> 13 & 1 )) = 1"


@pytest.fixture
def volume_name(docker_client):
    name = f"clawmark-test-seed-{uuid.uuid4().hex[:8]}"
    yield name
    for volume in docker_client.volumes.list(filters={"name": f"^{name}$"}):
        volume.remove(force=True)


def test_the_seeding_container_has_least_privileges(docker_client, volume_name):
    _seed(docker_client, ensure_image("python"), volume_name, "/opt/seed", HAS_LEAST_PRIVILEGES)
    assert docker_client.volumes.list(filters={"name": f"^{volume_name}$"})


def test_a_failed_seeding_check_removes_the_volume(docker_client, volume_name):
    with pytest.raises(ClawError, match=volume_name):
        _seed(docker_client, ensure_image("python"), volume_name, "/opt/seed", HAS_NET_RAW)
    assert docker_client.volumes.list(filters={"name": f"^{volume_name}$"}) == []
