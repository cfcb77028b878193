"""Inside a provisioned instance container, for EVERY bundled instance, an agent running
`git log --all`, `git reflog` or `git show <fix>` finds no trace of the fix; the patch it leaves is
extracted and cleaned in the container; an instance whose base already holds the fix is refused."""

from __future__ import annotations

import uuid

import pytest

from clawmark.catalog import load_instances
from clawmark.settings import TASKS_CATALOG
from clawmark.swe.environment import InstanceEnv, InstanceEnvConfig, fix_commits
from clawmark.swe.errors import HistoryLeak
from clawmark.swe.patch_extract import extract_patch
from clawmark.swe.patch_clean import split_sections

pytestmark = pytest.mark.docker
INSTANCES = {i.instance_id: i for i in load_instances(TASKS_CATALOG / "swe" / "instances.jsonl")}
SMALL = InstanceEnvConfig(memory_mb=2048)


def _sh(sandbox, cmd: str):
    return sandbox.exec(cmd, timeout_s=60)


@pytest.mark.parametrize("iid", sorted(INSTANCES))
def test_agent_finds_no_trace_of_the_fix_and_its_patch_is_extracted(iid, docker_client):
    instance = INSTANCES[iid]
    (fix,) = fix_commits(instance)  # the bundled rows name their fix commit
    with InstanceEnv(instance, SMALL) as sandbox:
        assert _sh(sandbox, "git rev-parse HEAD").stdout.strip() == instance.base_commit
        listed = set(_sh(sandbox, "git log --all --format=%H").stdout.split())
        assert fix not in listed and listed == set(_sh(sandbox, f"git rev-list {instance.base_commit}").stdout.split())
        assert fix not in _sh(sandbox, "git reflog --all; git stash list; git tag; git branch -a").stdout
        shown = _sh(sandbox, f"git show {fix}")
        assert shown.exit_code != 0 and "bad object" in shown.stderr
        assert _sh(sandbox, f"git cat-file -e {fix}").exit_code != 0
        assert _sh(sandbox, "git fsck --lost-found --no-reflogs 2>&1 | grep -c dangling").stdout.strip() == "0"

        sandbox.write_file("/tmp/gold.patch", instance.patch.encode())
        assert _sh(sandbox, "git apply /tmp/gold.patch && echo '# persona' > AGENTS.md && mkdir -p target "
                            "&& echo built > target/out.class").exit_code == 0
        extracted = extract_patch(sandbox, instance.base_commit)
    gold_files = {s.paths[-1] for s in split_sections(instance.patch)}
    assert {s.paths[-1] for s in split_sections(extracted.clean)} == gold_files
    assert extracted.dropped_files == {"AGENTS.md": "claw file"}  # target/ ignored by the global gitignore


def test_instance_whose_base_already_holds_the_fix_is_refused(docker_client):
    instance = next(iter(INSTANCES.values()))
    (fix,) = fix_commits(instance)
    leaky = instance.model_copy(update={"base_commit": fix})
    marker = f"refused-{uuid.uuid4().hex[:8]}"
    with pytest.raises(HistoryLeak) as info:
        with InstanceEnv(leaky, SMALL.model_copy(update={"labels": {"clawmark.test": marker}})):
            pytest.fail("a leaking instance must not be handed to a claw")
    assert any(fix in finding for finding in info.value.findings)
    left = docker_client.containers.list(all=True, filters={"label": f"clawmark.test={marker}"}, ignore_removed=True)
    assert left == []


def test_claw_running_as_a_plain_user_can_edit_and_its_patch_is_extracted(docker_client):
    instance = next(iter(INSTANCES.values()))
    with InstanceEnv(instance, SMALL.model_copy(update={"user": "1000:1000"})) as sandbox:
        edited = _sh(sandbox, "id -u && echo 'print(1)' > added_by_claw.py")
        assert edited.exit_code == 0 and edited.stdout.startswith("1000")
        extracted = extract_patch(sandbox, instance.base_commit)
    assert [s.paths[-1] for s in split_sections(extracted.clean)] == ["added_by_claw.py"]
