"""Helpers of the task-runtime tests: tmp task packages in the one-folder layout, the
workstation image, and commands run as the executor."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from clawmark.catalog.package import load_task
from clawmark.settings import TASKS_CATALOG
from clawmark.taskenv import TaskEnv, TaskEnvConfig

CLOSED_LOOP = TASKS_CATALOG / "closed_loop"
EVAL_RULE = """# Evaluation rule: {task_id}

## 1. Grading philosophy
Grade the delivered file only.

## 5. Checkpoint rubric
- **1.00 — Output.** {secret_line}

## 6. Scoring policy and score caps
- Cap at 0.00 if nothing was written.
"""


@pytest.fixture(scope="module")
def workstation(docker_client) -> str:
    from clawmark.runtime.images import ensure_image

    return ensure_image("workstation")


def make_package(root: Path, task_id: str, files: dict[str, str] | None = None,
                 secret_line: str = "the hidden rubric line", **spec) -> Path:
    """A one-folder task package under `root`; `files` maps package-relative paths to text."""
    folder = root / task_id
    (folder / "references").mkdir(parents=True)
    (folder / "references" / "eval_rule.md").write_text(EVAL_RULE.format(task_id=task_id, secret_line=secret_line))
    for rel, text in (files or {}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    data = {"task_id": task_id, "category": "105_cross_platform", "task": "Do the thing.",
            "references": ["references/eval_rule.md"], **spec}
    data["references"] = sorted(set(data["references"]) | {"references/eval_rule.md"})
    (folder / "task.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))
    return folder


def task_env(package: Path, image: str, logs_dir: Path, **config) -> TaskEnv:
    config.setdefault("labels", {"clawmark.test": "taskenv"})
    return TaskEnv(load_task(package), TaskEnvConfig(image=image, **config), logs_dir)


def as_executor(sandbox, cmd: str):
    """`cmd` as the executor user (the sandbox default), with a generous deadline."""
    return sandbox.exec(cmd, timeout_s=120)


def as_root(sandbox, cmd: str):
    return sandbox.exec(cmd, timeout_s=300, user="0")
