"""The bundled patch-task suite (tasks_catalog/swe/) without Docker: rows load, bundles hold the
base and the fix commit (after the base), test names have the shape the log parsers produce,
and the builder is deterministic (a rebuild elsewhere gives the same SHAs and bytes)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml

from clawmark.catalog import load_instances
from clawmark.catalog.suite import load_suite
from clawmark.settings import TASKS_CATALOG

SUITE_DIR = TASKS_CATALOG / "swe"
INSTANCES = SUITE_DIR / "instances.jsonl"
NAME_SHAPES = {
    "parse_log_pytest": re.compile(r"^tests/[\w/]+\.py::\w+(\[[^\]\s]+\])?$"),
    "parse_log_gotest": re.compile(r"^Test\w+(/\w+)*$"),
    "parse_log_cargo": re.compile(r"^(\w+::)*\w+$"),
    "parse_log_tap": re.compile(r"^- \S.*$"),
}


def _rows():
    return load_instances(INSTANCES)


def _git(bundle_clone: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(bundle_clone), *args], capture_output=True, text=True, timeout=60)


def _bundle_heads(bundle: Path) -> dict[str, str]:
    out = subprocess.run(["git", "bundle", "list-heads", str(bundle)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return {ref: sha for sha, ref in (line.split() for line in out.splitlines())}


@pytest.fixture(scope="module")
def clones(tmp_path_factory) -> dict[str, Path]:
    """A clone of every bundle (all refs), keyed by instance id."""
    root = tmp_path_factory.mktemp("bundles")
    result = {}
    for row in _rows():
        dest = root / row.instance_id
        subprocess.run(["git", "clone", "-q", "--mirror", str(row.repo_bundle), str(dest)], check=True, timeout=60)
        result[row.instance_id] = dest
    return result


def test_suite_size_and_languages():
    rows = _rows()
    languages = Counter(row.language for row in rows)
    assert len(rows) >= 12
    assert set(languages) >= {"python", "javascript", "go", "rust"}
    assert min(languages.values()) >= 3


def test_rows_have_swebench_fields_and_clawmark_extras():
    for row in _rows():
        assert row.instance_id == f"{row.repo.replace('/', '__')}-1"
        assert row.eval_type == "pass_and_fail" and row.image is None and row.hints_text == ""
        assert row.FAIL_TO_PASS and row.PASS_TO_PASS and not set(row.FAIL_TO_PASS) & set(row.PASS_TO_PASS)
        assert row.model_extra["runtime_image"] in {"python", "node", "go", "rust"}
        assert row.repo_bundle.is_file() and row.test_cmd in row.eval_script


def test_test_names_have_the_parsers_shape():
    for row in _rows():
        shape = NAME_SHAPES[row.log_parser]
        bad = [name for name in row.FAIL_TO_PASS + row.PASS_TO_PASS if not shape.match(name)]
        assert bad == [], f"{row.instance_id}: {bad}"


def test_eval_script_applies_test_patch_between_markers():
    for row in _rows():
        script = row.eval_script
        assert script.startswith("#!/bin/bash\nset -uxo pipefail\ncd /testbed\n")
        assert row.test_patch in script
        assert script.index("git apply -v -") < script.index(">>>>> Start Test Output") \
            < script.index(row.test_cmd) < script.index(">>>>> End Test Output") \
            < script.index("clawmark:test_exit_code=$rc")


def test_patch_and_test_patch_touch_disjoint_files():
    for row in _rows():
        files = lambda diff: set(re.findall(r"^diff --git a/(\S+) ", diff, re.M))  # noqa: E731
        assert files(row.patch) and files(row.test_patch)
        assert not files(row.patch) & files(row.test_patch), row.instance_id


def test_bundle_holds_base_and_later_fix(clones):
    for row in _rows():
        clone, fix = clones[row.instance_id], row.model_extra["fix_commit"]
        assert _git(clone, "cat-file", "-e", f"{row.base_commit}^{{commit}}").returncode == 0
        assert _git(clone, "merge-base", "--is-ancestor", row.base_commit, fix).returncode == 0
        assert fix != row.base_commit
        assert fix in _git(clone, "log", "--all", "--format=%H").stdout.split()


def _leaf(name: str, log_parser: str) -> str:
    """The part of a test name that must appear verbatim in the test sources."""
    if log_parser == "parse_log_tap":
        return name[2:]
    if log_parser == "parse_log_pytest":
        return name.split("::")[-1].split("[")[0]
    return re.split(r"::|/", name)[-1]


def test_listed_tests_exist_in_the_fix_commit(clones):
    for row in _rows():
        clone, fix = clones[row.instance_id], row.model_extra["fix_commit"]
        for name in row.FAIL_TO_PASS + row.PASS_TO_PASS:
            found = _git(clone, "grep", "-q", "-F", _leaf(name, row.log_parser), fix)
            assert found.returncode == 0, f"{row.instance_id}: {name} not in the sources at the fix"


def test_gold_and_test_patch_apply_at_base(clones, tmp_path):
    for row in _rows():
        work = tmp_path / row.instance_id
        subprocess.run(["git", "clone", "-q", str(clones[row.instance_id]), str(work)], check=True, timeout=60)
        assert _git(work, "checkout", "-q", row.base_commit).returncode == 0
        for diff in (row.patch, row.test_patch):
            done = subprocess.run(["git", "-C", str(work), "apply", "--check", "-"], input=diff, text=True,
                                  capture_output=True, timeout=60)
            assert done.returncode == 0, f"{row.instance_id}: {done.stderr}"


def test_some_fix_adds_a_file():
    assert any("new file mode" in row.patch for row in _rows())


def test_some_test_command_pins_seed_or_timezone():
    pinned = [row.instance_id for row in _rows() if re.search(r"\b(TZ|PYTHONHASHSEED)=", row.test_cmd)]
    assert len(pinned) >= 1


def test_suites_list_bundled_instances():
    ids = {row.instance_id for row in _rows()}
    mini, smoke = load_suite("swe-mini", TASKS_CATALOG), load_suite("swe-smoke", TASKS_CATALOG)
    assert mini.track == smoke.track == "patch"
    assert set(mini.tasks) == ids
    by_id = {row.instance_id: row.language for row in _rows()}
    assert sorted(by_id[i] for i in smoke.tasks) == ["go", "javascript", "python", "rust"]


def test_builder_is_deterministic(tmp_path):
    spec = importlib.util.spec_from_file_location("build_suite", SUITE_DIR / "build_suite.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    rebuilt = builder.build_suite(tmp_path)
    committed = [row.model_dump(mode="json") for row in _rows()]
    assert [r["base_commit"] for r in rebuilt] == [r["base_commit"] for r in committed]
    assert [r["fix_commit"] for r in rebuilt] == [r["fix_commit"] for r in committed]
    assert (tmp_path / "instances.jsonl").read_bytes() == INSTANCES.read_bytes()
    for row in rebuilt:  # same refs at the same SHAs (bytes may differ between git versions)
        heads = [_bundle_heads(folder / row["repo_bundle"]) for folder in (tmp_path, SUITE_DIR)]
        assert heads[0] == heads[1] and "refs/heads/main" in heads[0]
    for name in ("swe-mini", "swe-smoke"):
        generated = yaml.safe_load((tmp_path / "suites" / f"{name}.yaml").read_text())
        assert generated == yaml.safe_load((TASKS_CATALOG / "suites" / f"{name}.yaml").read_text())
