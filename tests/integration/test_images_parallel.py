"""`clawmark images build --jobs N` builds independent images side by side on a real engine: every
missing image ends present, a parent two children share is built once (the other waits on its
lock), and a child starts only once its parent is there."""

from __future__ import annotations

import re
import shutil
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clawmark.cli.main import app
from clawmark.settings import IMAGES_DIR

pytestmark = pytest.mark.docker

CHILD = """ARG PARENT
FROM ${{PARENT}}
RUN echo {mark} > /{name}.txt
"""


def _recipe(root: Path, name: str, parent: str, mark: str) -> None:
    folder = root / name
    folder.mkdir()
    (folder / "recipe.yaml").write_text(f"parent: {parent}\n")
    (folder / "Dockerfile").write_text(CHILD.format(mark=mark, name=name))


def test_jobs_build_a_shared_parent_once_and_every_child_after_it(tmp_path, monkeypatch, docker_client):
    from clawmark.runtime import images

    root = tmp_path / "images"
    shutil.copytree(IMAGES_DIR / "base", root / "base")  # same files, same ref: the engine has it
    mark = uuid.uuid4().hex  # a fresh image each run, so the builds are real
    _recipe(root, "shared", "base", mark)
    for child in ("left", "right", "third"):
        _recipe(root, child, "shared", mark)
    monkeypatch.setenv("CLAWMARK_IMAGES_DIR", str(root))
    refs = {name: images.image_ref(name) for name in ("shared", "left", "right", "third")}
    assert images.image_present(images.image_ref("base")), "make test builds the base image first"
    try:
        result = CliRunner().invoke(app, ["images", "build", "left", "right", "third", "--jobs", "3"])
        assert result.exit_code == 0, result.output
        assert all(images.image_present(ref) for ref in refs.values())
        started = re.findall(r"^\S+ \S+ (clawmark/\S+): ", result.output, re.M)
        assert started.count(refs["shared"]) >= 1  # its steps are shown, under the child that built it
        built_lines = [line for line in result.output.splitlines() if ": built " in line or "built meanwhile" in line]
        assert len(built_lines) == 3, result.output
        history = {name: docker_client.images.get(ref).history() for name, ref in refs.items()}
        shared_id = docker_client.images.get(refs["shared"]).id
        for child in ("left", "right", "third"):  # each child sits on the one shared parent
            assert any(layer["Id"] == shared_id for layer in history[child]), child
    finally:
        for ref in refs.values():
            try:
                docker_client.images.remove(ref, force=True)
            except Exception:  # noqa: BLE001 - best-effort cleanup of this test's own images
                pass
