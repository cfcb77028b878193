"""An instance's history is stripped once, into a derived image every attempt starts from: the
second attempt builds nothing, the container comes from the stripped image while the instance
keeps its own image id, the leak check runs once per image in a process (a container of another
image, or of the same one with other mounts, is checked again), and a strip that cannot be
built (a base commit the repository lacks) leaves no image (the attempt then strips in its own
container, as it always did)."""

from __future__ import annotations

import uuid

import pytest

from clawmark.catalog import load_instances
from clawmark.runtime import images
from clawmark.settings import TASKS_CATALOG
from clawmark.swe import environment
from clawmark.swe.environment import InstanceEnv, InstanceEnvConfig
from clawmark.swe.instance_image import instance_image
from clawmark.swe.stripped_image import stripped_image

pytestmark = pytest.mark.docker
INSTANCES = {i.instance_id: i for i in load_instances(TASKS_CATALOG / "swe" / "instances.jsonl")}
SMALL = InstanceEnvConfig(memory_mb=2048)
INSTANCE = INSTANCES["clawmark-fixtures__iniparse-py-1"]


def test_every_attempt_starts_from_one_stripped_image_and_still_checks_for_leaks(docker_client, monkeypatch, tmp_path):
    checked = []
    real_verify = environment.verify_history
    monkeypatch.setattr(environment, "verify_history", lambda *a, **k: (checked.append(a[1]), real_verify(*a, **k)))
    monkeypatch.setattr(environment, "_CLEAN_HISTORY", set())  # as in a fresh process
    with InstanceEnv(INSTANCE, SMALL) as sandbox:
        first_image = sandbox.image_id
    assert checked == [INSTANCE.base_commit]  # the leak check ran in the attempt's own container
    env = InstanceEnv(INSTANCE, SMALL)
    monkeypatch.setattr(images.docker_build, "build", lambda *a, **k: pytest.fail(f"built again: {a[1]}"))
    with env as sandbox:
        assert sandbox.exec("git rev-parse HEAD", timeout_s=60).stdout.strip() == INSTANCE.base_commit
        assert sandbox.exec("git config --system core.excludesFile", timeout_s=60).stdout.strip()
        second_image, instance_image_id = sandbox.image_id, env.image_id
    assert first_image == second_image != instance_image_id  # one stripped image, built once
    stripped = docker_client.images.get(second_image)
    assert stripped.labels["clawmark.kind"] == "derived" and stripped.labels["clawmark.parent"] == instance_image_id
    assert checked == [INSTANCE.base_commit]  # found clean once: not again for the same image
    mounted = SMALL.model_copy(update={"volumes": {str(tmp_path): {"bind": "/opt/extra", "mode": "ro"}}})
    with InstanceEnv(INSTANCE, mounted):
        pass
    assert checked == [INSTANCE.base_commit] * 2  # another mount could change what the repository holds


def test_a_strip_that_cannot_be_built_leaves_no_image_and_the_attempt_strips_itself(docker_client):
    image = docker_client.images.get(instance_image(INSTANCE))
    before = {tag for listed in docker_client.images.list() for tag in listed.tags}
    assert stripped_image(f"unstrippable-{uuid.uuid4().hex[:8]}", image, "f" * 40) is None  # no such commit
    made = {tag for listed in docker_client.images.list() for tag in listed.tags} - before
    assert not any(tag.startswith("clawmark/stripped-") for tag in made), made
