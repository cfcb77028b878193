"""Helpers of the desktop tests: the desktop image and a headed task container."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawmark.catalog.package import load_task
from clawmark.settings import TASKS_CATALOG
from clawmark.taskenv import TaskEnv, TaskEnvConfig
from clawmark.taskenv.desktop import DESKTOP_RECIPE
from tests.support.taskenv_fixtures import make_package

BASE_SKILLS = TASKS_CATALOG / "base_skills"


@pytest.fixture(scope="module")
def desktop_image(docker_client) -> str:
    from clawmark.runtime.images import ensure_image

    return ensure_image(DESKTOP_RECIPE)


def headed_env(desktop_image: str, root: Path, task_id: str, files: dict[str, str] | None = None,
               **config) -> TaskEnv:
    task = load_task(make_package(root, task_id, files=files, headed=True))
    config.setdefault("network_policy", "none")
    return TaskEnv(task, TaskEnvConfig(image=desktop_image, labels={"clawmark.test": "desktop"}, **config),
                   root / f"{task_id}-logs")
