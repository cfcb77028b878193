"""ensure_image / ensure_derived_image build only when the content-hash tag is missing."""

from __future__ import annotations

import uuid

import pytest

from clawmark.runtime.images import ensure_derived_image, ensure_image, image_ref, list_images, prune_images
from clawmark.runtime.sandbox import Sandbox, SandboxConfig

pytestmark = pytest.mark.docker


def test_ensure_image_on_a_present_image_does_not_rebuild(docker_client):
    ref = ensure_image("python")
    image_id = docker_client.images.get(ref).id
    lines: list[str] = []
    assert ensure_image("python", progress=lines.append) == ref == image_ref("python")
    assert lines == [] and docker_client.images.get(ref).id == image_id


def test_recipe_images_carry_clawmark_labels(docker_client):
    labels = docker_client.images.get(ensure_image("python")).labels
    assert labels["clawmark.managed"] == "true" and labels["clawmark.recipe"] == "python"
    assert labels["clawmark.parent"] == image_ref("base")
    assert image_ref("python").endswith(":" + labels["clawmark.hash"])


def test_list_images_reports_presence_and_size(docker_client):
    rows = {row.name: row for row in list_images()}
    ensure_image("python")
    assert rows["python"].present and rows["python"].size_bytes > 0
    assert rows["python"].ref == image_ref("python")


def test_derived_image_is_built_once_and_rebuilt_on_change(docker_client, tmp_path):
    (tmp_path / "payload.txt").write_text(uuid.uuid4().hex)
    dockerfile = "ARG PARENT\nFROM ${PARENT}\nCOPY payload.txt /payload.txt\n"
    parent = ensure_image("base")
    built, again, refs = [], [], []
    try:
        refs.append(ensure_derived_image("runtime-test", parent, tmp_path, dockerfile, progress=built.append))
        refs.append(ensure_derived_image("runtime-test", parent, tmp_path, dockerfile, progress=again.append))
        (tmp_path / "payload.txt").write_text("changed")
        refs.append(ensure_derived_image("runtime-test", parent, tmp_path, dockerfile))
        with Sandbox.provision(SandboxConfig(image=refs[2], labels={"clawmark.test": "runtime"})) as sb:
            content = sb.read_file("/payload.txt")
        labels = docker_client.images.get(refs[0]).labels
    finally:
        for ref in set(refs):
            docker_client.images.remove(ref, force=True)
    assert built and again == [] and refs[0] == refs[1] != refs[2] and content == b"changed"
    assert labels["clawmark.kind"] == "derived" and labels["clawmark.parent"] == parent


TOOLCHAIN_SMOKE = {
    "python": "cd /tmp && printf 'def test_ok():\\n    assert 1\\n' > test_a.py && python3 -m pytest -q test_a.py",
    "node": "node -e 'console.log(6*7)' && npm --version",
    "go": "mkdir -p /tmp/m && cd /tmp/m && go mod init m >/dev/null 2>&1 && "
          "printf 'package m\\nimport \"testing\"\\nfunc TestOk(t *testing.T) {}\\n' > m_test.go && go test ./...",
    "rust": "cd /tmp && cargo new -q --lib k && cd k && cargo test -q --offline",
}


@pytest.mark.parametrize("name", sorted(TOOLCHAIN_SMOKE))
def test_language_image_runs_its_toolchain(docker_client, name):
    config = SandboxConfig(image=ensure_image(name), memory_mb=2048, labels={"clawmark.test": "runtime"})
    with Sandbox.provision(config) as sb:
        result = sb.exec(TOOLCHAIN_SMOKE[name], timeout_s=300)
    assert result.exit_code == 0, result.stdout + result.stderr


def test_prune_selects_stale_tags_and_keeps_current_ones(docker_client):
    # Dry run only: a real prune on a shared engine could remove other people's stale images.
    current = ensure_image("base")
    stale = "clawmark/base:000000000000"
    docker_client.images.get(current).tag("clawmark/base", "000000000000")
    try:
        would_remove, _ = prune_images(dry_run=True)
        would_remove_all, _ = prune_images(all_images=True, dry_run=True)
    finally:
        docker_client.images.remove(stale)
    assert stale in would_remove and current not in would_remove
    assert {stale, current, image_ref("python")} <= set(would_remove_all)
    assert stale not in docker_client.images.get(current).tags


def test_a_failing_dockerfile_raises_build_failed_with_the_log_tail(docker_client, tmp_path):
    from clawmark.runtime.errors import ImageBuildFailed

    dockerfile = "ARG PARENT\nFROM ${PARENT}\nRUN echo about-to-fail && exit 7\n"
    with pytest.raises(ImageBuildFailed) as caught:
        ensure_derived_image("runtime-test-fail", ensure_image("base"), None, dockerfile)
    assert "about-to-fail" in str(caught.value) and "runtime-test-fail" in str(caught.value)
