"""A task package is a read-only input: pre_exec runs in the attempt's copy (the package stays
byte for byte what it was, whatever the script writes next to itself), the copy's regenerated
references are the attempt's, kept after it as package/, and a package that changes anyway is
an error naming the files. Host-side only: no container is started."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest
import yaml

from clawmark.catalog.package import load_task
from clawmark.taskenv import PreExecFailed, TaskEnv
from clawmark.taskenv.package_guard import PackageChanged, PackageGuard, attempt_copy, file_digests
from tests.support.paths import UCB_SAMPLE

UPSTREAM = UCB_SAMPLE
# What upstream populators do: find the package through __file__ and rewrite a source and a
# reference in it (here with a value of its own run, so two runs never agree).
REGENERATE = """import json, os, pathlib, time, uuid
root = pathlib.Path(__file__).resolve().parent.parent
stamp = uuid.uuid4().hex
(root / "sources" / "snapshot.json").write_text(json.dumps({"stamp": stamp}))
time.sleep(0.3)
(root / "references" / "answer.json").write_text(json.dumps({"stamp": stamp}))
"""


def package(tmp_path: Path, script: str = REGENERATE, **spec) -> Path:
    folder = tmp_path / "tasks" / "regen_task"
    (folder / "references").mkdir(parents=True)
    (folder / "references" / "eval_rule.md").write_text("# rule\n\n## 5. Checkpoint rubric\n- **1.0 — All.** x\n")
    (folder / "references" / "answer.json").write_text('{"stamp": "released"}')
    (folder / "sources").mkdir()
    (folder / "sources" / "snapshot.json").write_text('{"stamp": "released"}')
    (folder / "ops").mkdir()
    (folder / "ops" / "regen.py").write_text(script)
    data = {"task_id": "regen_task", "category": "101_skill_usage", "task": "t", "pre_exec": ["ops/regen.py"],
            "references": ["references/eval_rule.md", "references/answer.json"], "pre_exec_parallel_safe": True,
            **spec}
    (folder / "task.yaml").write_text(yaml.safe_dump(data))
    for path in folder.rglob("*"):  # released packages are read-only
        path.chmod(0o555 if path.is_dir() else 0o444)
    return folder


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def pre_exec_only(task, work: Path) -> TaskEnv:
    env = TaskEnv(task, logs_dir=work / "logs", work_dir=work / "package")
    env.pre_exec()
    return env


@pytest.fixture
def released(tmp_path):
    folder = package(tmp_path)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def test_pre_exec_rewrites_only_the_attempts_copy(released, tmp_path):
    task = load_task(released)
    before, key = tree_bytes(released), task.content_hash()
    env = pre_exec_only(task, tmp_path / "attempt")
    stamp = json.loads((env.task.package_dir / "references" / "answer.json").read_text())["stamp"]
    assert stamp != "released"
    assert json.loads((env.task.sources_dir / "snapshot.json").read_text())["stamp"] == stamp
    assert env.task.package_dir.is_relative_to(tmp_path / "attempt" / "package")
    assert tree_bytes(released) == before and load_task(released).content_hash() == key
    env.__exit__(None, None, None)  # no container: prunes the copy and checks the package
    kept = tmp_path / "attempt" / "package"
    assert sorted(p.relative_to(kept).as_posix() for p in kept.rglob("*") if p.is_file()) == [
        "package.json", "regen_task/references/answer.json", "regen_task/references/eval_rule.md"]
    assert json.loads((kept / "regen_task/references/answer.json").read_text())["stamp"] == stamp
    manifest = json.loads((kept / "package.json").read_text())
    assert manifest["changed_by_pre_exec"] == ["references/answer.json", "sources/snapshot.json"]


def test_concurrent_attempts_each_get_their_own_references(released, tmp_path):
    task = load_task(released)
    before = tree_bytes(released)
    envs: dict[int, TaskEnv] = {}
    runs = [threading.Thread(target=lambda i=i: envs.__setitem__(i, pre_exec_only(task, tmp_path / f"a{i}")))
            for i in range(2)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    stamps = [json.loads((envs[i].task.package_dir / "references/answer.json").read_text())["stamp"] for i in range(2)]
    sources = [json.loads((envs[i].task.sources_dir / "snapshot.json").read_text())["stamp"] for i in range(2)]
    assert stamps == sources and stamps[0] != stamps[1]
    assert tree_bytes(released) == before


def test_a_package_changed_during_the_attempt_is_an_error_naming_the_files(tmp_path):
    folder = package(tmp_path)
    folder.chmod(0o755)
    (folder / "references").chmod(0o755)
    task = load_task(folder)
    env = pre_exec_only(task, tmp_path / "attempt")
    (folder / "references" / "answer.json").chmod(0o644)
    (folder / "references" / "answer.json").write_text("{}")  # someone writes into the package itself
    (folder / "references" / "extra.md").write_text("new")
    with pytest.raises(PackageChanged, match=r"changed during the attempt.*references/answer.json, references/extra.md"):
        env.__exit__(None, None, None)


def test_a_task_without_pre_exec_is_not_copied(tmp_path):
    folder = package(tmp_path)
    data = yaml.safe_load((folder / "task.yaml").read_text())
    data.pop("pre_exec")
    (folder / "task.yaml").chmod(0o644)
    (folder / "task.yaml").write_text(yaml.safe_dump(data))
    task = load_task(folder)
    env = pre_exec_only(task, tmp_path / "attempt")
    assert env.task is task and not (tmp_path / "attempt" / "package").exists()
    env.__exit__(None, None, None)


def test_an_upstream_package_copies_in_its_own_layout(tmp_path):
    task = load_task(UPSTREAM / "tasks" / "101_skill_usage" / "task_101_21_notion_consolidate.yaml")
    copy = attempt_copy(task, tmp_path / "package")
    assert copy.layout == "uniclaw" and copy.task_id == task.task_id
    assert copy.task_file == tmp_path / "package" / "tasks" / "101_skill_usage" / task.task_file.name
    assert copy.content_hash() == task.content_hash()  # the copy is the package, byte for byte
    assert file_digests(copy) == PackageGuard(task).digests


def test_a_released_upstream_populator_leaves_the_package_alone(tmp_path):
    """The notion task's snapshot-mode populator rewrites sources/notion_snapshot.json and
    references/ground_truth.json next to itself: in the copy only."""
    source = UPSTREAM / "tasks" / "101_skill_usage" / "task_101_21_notion_consolidate.yaml"
    tree = tmp_path / "tree"
    shutil.copytree(UPSTREAM / "injection" / "101_skill_usage" / source.stem,
                    tree / "injection" / "101_skill_usage" / source.stem)
    (tree / "tasks" / "101_skill_usage").mkdir(parents=True)
    shutil.copy(source, tree / "tasks" / "101_skill_usage")
    task = load_task(tree / "tasks" / "101_skill_usage" / source.name)
    before = tree_bytes(tree)
    env = TaskEnv(task, logs_dir=tmp_path / "logs", work_dir=tmp_path / "package")
    env.config.snapshot = True
    env.pre_exec()
    log = (tmp_path / "logs" / "pre_exec" / "ops__populate.py.log").read_text()
    assert "SNAPSHOT_MODE=1: wrote snapshot + ground_truth to " + str(env.task.package_dir) in log
    assert tree_bytes(tree) == before
    env.__exit__(None, None, None)


def test_a_link_to_a_hidden_file_is_left_out_of_the_copy(tmp_path):
    """A link planted after the catalog checked the package (which refuses it) must not turn into
    a plain copy of the rubric among the executor's sources."""
    folder = package(tmp_path)
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    (folder / "sources" / "notes.md").write_text("public notes")
    task = load_task(folder)
    (folder / "sources" / "rubric.md").symlink_to("../references/eval_rule.md")
    (folder / "sources" / "elsewhere.md").symlink_to(folder / "sources" / "notes.md")  # absolute
    (folder / "sources" / "notes_link.md").symlink_to("notes.md")
    (folder / "references" / "rule_link.md").symlink_to("eval_rule.md")  # hidden to hidden: the judge's
    copy = attempt_copy(task, tmp_path / "package")
    assert sorted(p.name for p in copy.sources_dir.iterdir()) == ["notes.md", "notes_link.md", "snapshot.json"]
    assert (copy.sources_dir / "notes_link.md").is_symlink()
    assert (copy.package_dir / "references" / "rule_link.md").read_text().startswith("# rule")


def test_a_pre_exec_that_breaks_its_copy_fails_typed(tmp_path):
    folder = package(tmp_path, script="import pathlib\n"
                     "pathlib.Path(__file__).resolve().parent.parent.joinpath('references', 'eval_rule.md').unlink()\n")
    task = load_task(folder)
    env = TaskEnv(task, logs_dir=tmp_path / "logs", work_dir=tmp_path / "package")
    with pytest.raises(PreExecFailed, match="left a package that does not load"):
        env.pre_exec()
    env.__exit__(PreExecFailed, None, None)
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
