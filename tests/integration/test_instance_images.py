"""Instance images on a worker: a row's registry image is pulled from a real registry when missing
(Debian's `docker-registry` on loopback, fed by a real `docker push`), stays a typed image_missing
when pulling is off or the registry lacks it; the least recently used instance images are pruned
past the budget (never one in use, never a recipe image); the disk preflight prunes, then fails
typed below its floor."""

from __future__ import annotations

import io
import os
import tarfile
import time
import uuid

import pytest

from clawmark.catalog import SweInstance
from clawmark.runtime.image_cache import ImageCacheConfig, ImagePullFailed, prune_lru, record_use
from clawmark.swe.errors import InstanceImageMissing
from clawmark.swe.instance_image import instance_image
from clawmark.sweeps.cell_preflight import DiskLow, DiskPreflightConfig, disk_preflight
from tests.support.image_registry import image_registry

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    """A real registry on 127.0.0.1 (the engine trusts loopback registries over plain HTTP)."""
    with image_registry(tmp_path_factory.mktemp("registry")) as port:
        yield f"127.0.0.1:{port}"


def _tiny_image(docker_client, ref: str, content: str, labels: dict[str, str] | None = None) -> None:
    """An image of one small file (`docker import`), so pushes and pulls take milliseconds."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        payload = content.encode()
        info = tarfile.TarInfo("marker.txt")
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))
    repository, tag = ref.rsplit(":", 1)
    changes = [f'LABEL "{k}"="{v}"' for k, v in (labels or {}).items()]
    docker_client.api.import_image_from_data(data.getvalue(), repository=repository, tag=tag, changes=changes)


def _instance(image: str) -> SweInstance:
    return SweInstance(repo="h4/pull", instance_id="h4__pull-1", base_commit="0" * 40, patch="", test_patch="",
                       problem_statement="x", FAIL_TO_PASS=[], PASS_TO_PASS=[], image=image)


def _present(docker_client, ref: str) -> bool:
    try:
        docker_client.images.get(ref)
    except Exception:  # noqa: BLE001 - ImageNotFound
        return False
    return True


def test_a_missing_row_image_is_pulled_unless_offline(docker_client, registry, tmp_path):
    token = uuid.uuid4().hex[:8]
    ref = f"{registry}/swebench/sweb.eval.x86_64.h4__pull-{token}:latest"
    _tiny_image(docker_client, ref, token)
    docker_client.images.push(ref.rsplit(":", 1)[0], tag="latest")
    docker_client.images.remove(ref)
    cache = ImageCacheConfig(use_dir=tmp_path / "use")
    try:
        offline = cache.model_copy(update={"pull": False})
        with pytest.raises(InstanceImageMissing):  # typed image_missing, nothing fetched
            instance_image(_instance(ref), cache=offline)
        assert not _present(docker_client, ref)

        assert instance_image(_instance(ref), cache=cache) == ref
        assert _present(docker_client, ref) and len(list((tmp_path / "use").glob("*.json"))) == 1  # pulled: its own

        with pytest.raises(InstanceImageMissing) as missing:  # the registry does not have it: still image_missing
            instance_image(_instance(f"{registry}/swebench/absent-{token}:latest"), cache=cache)
        assert isinstance(missing.value.__cause__, ImagePullFailed) and "could not be pulled" in str(missing.value)
    finally:
        if _present(docker_client, ref):
            docker_client.images.remove(ref)


def test_lru_prunes_oldest_instance_image_never_in_use_or_recipe(docker_client, tmp_path):
    token = uuid.uuid4().hex[:8]
    refs = {name: f"clawmark-test/h4-lru-{token}-{name}:1" for name in ("recipe", "busy", "old", "new")}
    for name, ref in refs.items():
        _tiny_image(docker_client, ref, f"{token}-{name}", {"clawmark.kind": "recipe"} if name == "recipe" else None)
    cache = ImageCacheConfig(use_dir=tmp_path / "use")
    busy = docker_client.containers.create(refs["busy"], command=["none"], labels={"clawmark.test": token})
    try:
        for age, name in enumerate(("recipe", "busy", "old", "new")):  # recipe used longest ago, new most recently
            record_use(refs[name], cache, made_here=True)
            stamp = time.time() - 1000 + age * 100
            path = next(p for p in (tmp_path / "use").glob("*.json") if refs[name] in p.read_text())
            os.utime(path, (stamp, stamp))
        sizes = {name: docker_client.images.get(ref).attrs["Size"] for name, ref in refs.items()}
        budget = sum(sizes.values()) - 1  # one image too many
        assert prune_lru(cache, budget) == [refs["old"]]  # recipe and busy are older, but never removed
        assert not _present(docker_client, refs["old"])
        assert all(_present(docker_client, refs[n]) for n in ("recipe", "busy", "new"))
    finally:
        busy.remove(force=True)
        for ref in refs.values():
            if _present(docker_client, ref):
                docker_client.images.remove(ref)


def test_disk_preflight_prunes_then_fails_typed_below_its_floor(docker_client, tmp_path):
    token = uuid.uuid4().hex[:8]
    ref = f"clawmark-test/h4-preflight-{token}:1"
    _tiny_image(docker_client, ref, token)
    cache = ImageCacheConfig(use_dir=tmp_path / "use")
    record_use(ref, cache, made_here=True)
    try:
        free = disk_preflight(tmp_path, DiskPreflightConfig(floor_bytes=0), cache=cache)
        root = docker_client.info()["DockerRootDir"]
        assert root in free and all(v > 0 for v in free.values())  # the engine's disk is watched too
        assert _present(docker_client, ref)  # enough space: nothing pruned

        floor = max(free.values()) + 2**50  # more than any disk here
        with pytest.raises(DiskLow) as low:
            disk_preflight(tmp_path, DiskPreflightConfig(floor_bytes=floor, wait_s=0.3, poll_s=0.1), cache=cache)
        assert "below the" in str(low.value) and root in str(low.value)
        assert not _present(docker_client, ref)  # the recorded instance image went first
    finally:
        if _present(docker_client, ref):
            docker_client.images.remove(ref)
