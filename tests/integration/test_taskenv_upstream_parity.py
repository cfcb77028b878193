"""An upstream-layout task container as upstream's runner builds it (docs/upstream-parity.md):
`*_snapshot.json` sources of a task without a snapshot path and a skill whose entry file is a
lowercase `skill.md` are copied in, the host aliases resolve to the host, /dev/shm is 2 GB."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from clawmark.catalog.package import load_task
from clawmark.taskenv import TaskEnv, TaskEnvConfig

from tests.integration.taskenv_support import EVAL_RULE, as_executor
from tests.integration.taskenv_support import workstation  # noqa: F401 - fixture

pytestmark = pytest.mark.docker
TASK_ID, CATEGORY = "task_101_99_parity_probe", "101_skill_usage"
FILES = {
    "sources/ai_news_zh_snapshot.json": '{"items": []}\n',  # as 101_35: its snapshots are plain inputs
    "sources/notes.txt": "notes\n",
    "skills/clawsec/skill.md": "# clawsec\nlowercase entry file, as upstream's 101_25\n",
    "skills/clawsec/_meta.json": "{}\n",
    "references/eval_rule.md": EVAL_RULE.format(task_id=TASK_ID, secret_line="hidden"),
}


def make_upstream_package(root: Path, files: dict[str, str], **spec) -> Path:
    """A task in upstream's layout (tasks/<category>/<id>.yaml + injection/<category>/<id>/)."""
    package = root / "injection" / CATEGORY / TASK_ID
    for rel, text in files.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text)
    data = {"task_id": TASK_ID, "category": CATEGORY, "task": "Read the sources.",
            "references": ["references/eval_rule.md"], "skills": ["clawsec"], **spec}
    task_file = root / "tasks" / CATEGORY / f"{TASK_ID}.yaml"
    task_file.parent.mkdir(parents=True)
    task_file.write_text(yaml.safe_dump(data))
    return task_file


@pytest.fixture(scope="module")
def parity_env(workstation, tmp_path_factory):  # noqa: F811
    root = tmp_path_factory.mktemp("upstream")
    task = load_task(make_upstream_package(root, FILES))
    config = TaskEnvConfig(image=workstation, labels={"clawmark.test": "taskenv-parity"})
    env = TaskEnv(task, config, root / "logs")
    with env as sandbox:
        yield env, sandbox


def test_snapshot_sources_and_a_lowercase_skill_are_copied_in(parity_env):
    _env, sandbox = parity_env
    listed = as_executor(sandbox, "ls /tmp_workspace/clawbench/sources; ls /root/skills/clawsec")
    assert listed.stdout.split() == ["ai_news_zh_snapshot.json", "notes.txt", "_meta.json", "skill.md"]
    assert sandbox.read_file("/root/skills/clawsec/skill.md").decode() == FILES["skills/clawsec/skill.md"]


def test_host_aliases_and_shared_memory_are_upstreams(parity_env, docker_client):
    _env, sandbox = parity_env
    hosts = as_executor(sandbox, "getent hosts match-stream.local host.docker.internal clawmark-gateway")
    addresses = {line.split()[1]: line.split()[0] for line in hosts.stdout.splitlines()}
    assert set(addresses) == {"match-stream.local", "host.docker.internal", "clawmark-gateway"}
    assert len(set(addresses.values())) == 1  # every alias names the host, where the gateway listens
    shm = as_executor(sandbox, "df -k --output=size /dev/shm | tail -1")
    assert int(shm.stdout) == 2 * 2**20
    assert docker_client.containers.get(sandbox.container_id).attrs["HostConfig"]["ShmSize"] == 2 * 2**30
