"""Closed-loop task packages: both layouts, the bundled catalog, and every loader error path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from clawmark.catalog import CatalogError, PathEscapeError, load_task, load_tasks, parse_category
from clawmark.settings import TASKS_CATALOG

RULE = """# Rule
## 1. Contract
Write results/out.txt.
## 5. Checkpoints
- C1 file exists (weight 0.4)
- C2 content is 42 (weight 0.6)
## 6. Policy
- Cap at `0.3` if the number is wrong.
"""

SPEC = {
    "task_id": "demo_task", "category": "102_exploration", "success_threshold": 0.9,
    "task": "Find the answer and write it to /tmp_workspace/results/out.txt.",
    "references": ["references/eval_rule.md"], "sources": ["sources/data.txt"],
    "skills": ["lookup"], "services": [{"name": "api", "start": "python3 api.py"}],
}
FILES = {
    "sources/data.txt": "answer=42\n", "sources/live_snapshot.json": "{}",
    "skills/lookup/SKILL.md": "# lookup\n", "services/api/api.py": "print('up')\n",
    "references/eval_rule.md": RULE, ".privacy": "# names only\nAPI_TOKEN\n",
}


def make_task(root: Path, layout: str = "folder", spec: dict | None = None,
              files: dict[str, str] | None = None, raw_yaml: str | None = None) -> Path:
    """Write a task package; returns the path load_task takes (folder or UniClawBench YAML)."""
    spec = {**SPEC, **(spec or {})}
    task_id, category = str(spec.get("task_id", "demo_task")), str(spec.get("category", "102_exploration"))
    if layout == "folder":
        package, task_file = root / task_id, root / task_id / "task.yaml"
    else:
        package = root / "injection" / category / task_id
        task_file = root / "tasks" / category / f"{task_id}.yaml"
    for relative, text in {**FILES, **(files or {})}.items():
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text(text, encoding="utf-8")
    task_file.parent.mkdir(parents=True, exist_ok=True)
    task_file.write_text(raw_yaml if raw_yaml is not None else yaml.safe_dump(spec, allow_unicode=True))
    return package if layout == "folder" else task_file


def test_bundled_catalog_covers_every_capability_in_both_languages() -> None:
    tasks = load_tasks(TASKS_CATALOG / "closed_loop")
    covered = {(t.language, t.capability) for t in tasks if t.layout == "folder"}
    assert len(covered) == 10
    assert sum(t.layout == "uniclaw" for t in tasks) >= 2
    assert all(abs(t.rubric.total_weight - 1.0) < 1e-6 and t.rubric.caps and not t.warnings for t in tasks)
    assert all(len(t.rubric.sections) >= 9 and t.checks is not None for t in tasks)  # title + nine sections
    assert any(t.spec.task_snapshot for t in tasks) and any(t.services for t in tasks)
    assert any(s.spec.oneshot for t in tasks for s in t.services)
    assert all((d / "SKILL.md").is_file() for t in tasks for d in t.skill_dirs.values())


def test_bundled_suite_has_the_pieces_real_tasks_have() -> None:
    """A skill that ships a script, an HTTP API, a FIFO game, a seeded SQLite store, a oneshot
    seeder, and a real PNG, each in some task; the PNGs are redrawn byte-identical by their script."""
    tasks = {t.task_id: t for t in load_tasks(TASKS_CATALOG / "closed_loop")}
    service_text = {t.task_id: " ".join(p.read_text() for s in t.services for p in s.folder.glob("*.py"))
                    for t in tasks.values()}
    assert all(any(d.glob("*.py")) for t in tasks.values() for d in t.skill_dirs.values())
    assert {"en_101_sales_total", "zh_201_invoice_sum", "zh_205_inbox_digest"} <= {
        i for i, t in tasks.items() if t.skill_dirs}
    assert "ThreadingHTTPServer" in service_text["en_105_ticket_sync"] + service_text["zh_205_inbox_digest"]
    assert "os.mkfifo" in service_text["en_102_find_port"]
    assert "sqlite3.connect" in service_text["zh_202_error_code"]
    assert all(s.spec.oneshot for s in tasks["zh_202_error_code"].services)
    for task_id, image, script in [("en_104_chart_peak", "monthly_revenue.png", "make_chart.py"),
                                   ("zh_204_pie_share", "channels.png", "make_pie.py")]:
        package = tasks[task_id].package_dir
        assert (package / "sources" / image).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"sources/{image}" in tasks[task_id].spec.sources


def test_generated_sources_are_reproducible(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    for task_id, image, script in [("en_104_chart_peak", "monthly_revenue.png", "make_chart.py"),
                                   ("zh_204_pie_share", "channels.png", "make_pie.py"),
                                   ("en_103_meeting_decision", "standups.md", "make_standups.py")]:
        package = TASKS_CATALOG / "closed_loop" / task_id
        work = tmp_path / task_id
        (work / "sources").mkdir(parents=True)
        shutil.copy(package / "references" / script, work / script)
        subprocess.run([sys.executable, script], cwd=work, check=True, timeout=60)
        assert (work / "sources" / image).read_bytes() == (package / "sources" / image).read_bytes()


def test_both_layouts_load_into_equal_models(tmp_path: Path) -> None:
    folder = load_task(make_task(tmp_path / "one", "folder"))
    uniclaw = load_task(make_task(tmp_path / "uc", "uniclaw"))
    assert (folder.layout, uniclaw.layout) == ("folder", "uniclaw")
    assert folder.spec == uniclaw.spec
    assert folder.portable() == uniclaw.portable()
    assert folder.content_hash() == uniclaw.content_hash()
    assert uniclaw.package_dir == (tmp_path / "uc/injection/102_exploration/demo_task").resolve()
    assert uniclaw.skill_dirs["lookup"] == uniclaw.package_dir / "skills/lookup"
    assert uniclaw.services[0].folder == uniclaw.package_dir / "services/api"


def test_resolved_fields_language_capability_privacy_and_hidden(tmp_path: Path) -> None:
    task = load_task(make_task(tmp_path, spec={"category": "204_multimodal"}))
    assert (task.language, task.capability) == ("zh", "multimodal")
    assert task.privacy_vars == ["API_TOKEN"]
    assert task.services[0].spec.path == "api" and task.services[0].spec.oneshot is False
    hidden = task.hidden_paths()
    assert task.eval_rule_file in hidden and task.package_dir / "references" in hidden
    assert task.package_dir / ".privacy" in hidden
    assert not any(p.is_relative_to(task.sources_dir) for p in hidden)


def test_snapshot_mode_switches_prompt_and_snapshot_sources(tmp_path: Path) -> None:
    task = load_task(make_task(tmp_path, spec={"task_snapshot": "Use the offline export."}))
    assert task.prompt() == SPEC["task"] and task.prompt(snapshot=True) == "Use the offline export."
    assert [p.name for p in task.source_files()] == ["data.txt"]
    assert [p.name for p in task.source_files(snapshot=True)] == ["data.txt", "live_snapshot.json"]


def test_snapshot_sources_are_plain_inputs_of_a_task_without_a_snapshot_path(tmp_path: Path) -> None:
    """Upstream holds `*_snapshot.json` back only for a task with the SNAPSHOT_MODE switch
    (101_35 reads its two snapshots as ordinary sources)."""
    plain = load_task(make_task(tmp_path / "plain"))
    assert [p.name for p in plain.source_files()] == ["data.txt", "live_snapshot.json"]
    switch = load_task(make_task(tmp_path / "switch", files={".privacy": "SNAPSHOT_MODE\nAPI_TOKEN\n"}))
    assert [p.name for p in switch.source_files()] == ["data.txt"]
    assert [p.name for p in switch.source_files(snapshot=True)] == ["data.txt", "live_snapshot.json"]


def test_a_skill_folder_loads_whatever_its_entry_file(tmp_path: Path) -> None:
    task = load_task(make_task(tmp_path, spec={"skills": ["lookup", "clawsec"]},
                               files={"skills/clawsec/skill.md": "# clawsec\n"}))  # as upstream's 101_25
    assert sorted(task.skill_dirs) == ["clawsec", "lookup"] and not task.warnings


def test_content_hash_changes_when_a_source_changes(tmp_path: Path) -> None:
    before = load_task(make_task(tmp_path / "a")).content_hash()
    after = load_task(make_task(tmp_path / "b", files={"sources/data.txt": "answer=43\n"})).content_hash()
    assert before != after


def load_error(path: Path, kind: type[CatalogError] = CatalogError) -> CatalogError:
    with pytest.raises(kind) as err:
        load_task(path)
    assert "\n" not in str(err.value)
    return err.value


def assert_names(error: CatalogError, file: Path, field: str) -> None:
    assert error.file == str(file.resolve()) and error.field == field
    assert str(error).startswith(f"{file.resolve()}") and f": {field}: expected " in str(error)


@pytest.mark.parametrize("missing", ["task_id", "task", "references", "category"])
def test_missing_required_field(tmp_path: Path, missing: str) -> None:
    spec = {k: v for k, v in SPEC.items() if k != missing}
    path = make_task(tmp_path, spec=None, raw_yaml=yaml.safe_dump(spec))
    assert_names(load_error(path), path / "task.yaml", missing)


@pytest.mark.parametrize("field, value", [
    ("timeout_seconds", "soon"), ("success_threshold", 1.5), ("skills", "lookup"),
    ("agent_sys", "claude-code"), ("headed", "maybe"), ("recording", "4k"),
])
def test_wrong_type_or_value(tmp_path: Path, field: str, value: object) -> None:
    path = make_task(tmp_path, spec={field: value})
    assert_names(load_error(path), path / "task.yaml", field)


def test_nested_codex_field_is_named_with_its_path(tmp_path: Path) -> None:
    path = make_task(tmp_path, spec={"codex": {"max_user_followups": -1}})
    assert_names(load_error(path), path / "task.yaml", "codex.max_user_followups")


@pytest.mark.parametrize("value", ["yes", "true", 1, "sometimes", ["x"]])
def test_a_gui_value_that_is_not_a_boolean_is_refused_at_load(tmp_path: Path, value: object) -> None:
    path = make_task(tmp_path, spec={"gui": value})
    error = load_error(path)
    assert_names(error, path / "task.yaml", "gui")
    assert error.expected == f"true or false: does the task need the desktop? (got {value!r})"


def test_gui_true_or_false_loads_and_an_unset_gui_stays_out_of_the_spec(tmp_path: Path) -> None:
    assert load_task(make_task(tmp_path / "t", spec={"gui": True})).spec.gui is True
    assert load_task(make_task(tmp_path / "f", spec={"gui": False})).spec.gui is False
    unset = load_task(make_task(tmp_path / "u"))
    # an unset field adds nothing to the dump the content hash is made of
    assert unset.spec.gui is None and "gui" not in unset.spec.model_dump(mode="json")


def test_bad_ids(tmp_path: Path) -> None:
    bad_id = make_task(tmp_path / "a", raw_yaml=yaml.safe_dump({**SPEC, "task_id": "-bad id"}))
    assert_names(load_error(bad_id), bad_id / "task.yaml", "task_id")
    other = make_task(tmp_path / "b", raw_yaml=yaml.safe_dump({**SPEC, "task_id": "other_name"}))
    error = load_error(other)
    assert_names(error, other / "task.yaml", "task_id")
    assert "demo_task" in error.expected
    bad_service = make_task(tmp_path / "c", spec={"services": [{"name": "a b", "start": "x"}]})
    assert_names(load_error(bad_service), bad_service / "task.yaml", "services.0.name")


def test_uniclaw_category_must_match_its_folder(tmp_path: Path) -> None:
    path = make_task(tmp_path, "uniclaw")
    moved = tmp_path / "tasks" / "103_long_context" / path.name
    moved.parent.mkdir()
    path.rename(moved)
    assert_names(load_error(moved), moved, "category")


@pytest.mark.parametrize("category, text, expected", [
    ("101_skill_usage", "", ("en", "skill_usage")),
    ("201_skill_usage_zh", "", ("zh", "skill_usage")),
    ("205_cross_platform_zh", "", ("zh", "cross_platform")),
    ("202_exploration", "", ("zh", "exploration")),  # the _zh suffix is optional on 2xx
    ("000_template", "Replace this with the public end-user request.", ("en", "setup")),
    ("001_smoketest", "请检查我的邮箱是否还能登录，并把结果写下来。", ("zh", "setup")),
])
def test_release_categories(category: str, text: str, expected: tuple) -> None:
    assert parse_category(category, text) == expected


@pytest.mark.parametrize("category", ["106_other", "101_exploration", "skill_usage", "301_skill_usage",
                                      "101_skill_usage_zh", "201_skill_usage_cn", "00_template"])
def test_unknown_or_inconsistent_category(tmp_path: Path, category: str) -> None:
    path = make_task(tmp_path, spec={"category": category})
    assert_names(load_error(path), path / "task.yaml", "category")
    with pytest.raises(ValueError):
        parse_category(category)


def test_missing_eval_rule(tmp_path: Path) -> None:
    path = make_task(tmp_path)
    (path / "references/eval_rule.md").unlink()
    error = load_error(path)
    assert_names(error, path / "task.yaml", "references[0]")
    assert "eval_rule.md" in error.expected


def test_references_must_declare_eval_rule(tmp_path: Path) -> None:
    path = make_task(tmp_path, spec={"references": ["references/notes.md"]})
    error = load_error(path)
    assert_names(error, path / "task.yaml", "references")
    assert "eval_rule.md" in error.expected


def test_eval_rule_without_weighted_checkpoints_loads_with_warnings(tmp_path: Path) -> None:
    path = make_task(tmp_path, files={"references/eval_rule.md": "# Rule\n## A\nBe nice.\n## B\nNo weights.\n"})
    task = load_task(path)
    rule = (path / "references/eval_rule.md").resolve()
    assert task.rubric.checkpoints == [] and "Be nice." in task.rubric.raw_text
    assert [w.split(": ")[:2] for w in task.warnings] == [[str(rule), "checkpoints"], [str(rule), "caps"]]


@pytest.mark.parametrize("field, spec", [
    ("sources[0]", {"sources": ["../../etc/passwd"]}),
    ("sources[0]", {"sources": ["/etc/passwd"]}),
    ("skills[0]", {"skills": ["../../etc/passwd"]}),
    ("skills[0]", {"skills": ["/etc"]}),
    ("references[1]", {"references": ["references/eval_rule.md", "../../etc/passwd"]}),
    ("pre_exec[0]", {"pre_exec": ["../../../etc/passwd"]}),
    ("services[0].path", {"services": [{"name": "api", "path": "../../../etc", "start": "x"}]}),
])
def test_declared_path_escaping_the_package(tmp_path: Path, field: str, spec: dict) -> None:
    path = make_task(tmp_path, spec=spec)
    error = load_error(path, PathEscapeError)
    assert_names(error, path / "task.yaml", field)
    assert "inside the task package" in error.expected


def test_symlink_pointing_out_of_the_package(tmp_path: Path) -> None:
    path = make_task(tmp_path, spec={"sources": ["sources/leak"]})
    os.symlink("/etc/passwd", path / "sources/leak")
    assert_names(load_error(path, PathEscapeError), path / "task.yaml", "sources")
    (path / "sources/leak").unlink()
    os.symlink("/etc", path / "skills/evil")  # undeclared, but the folder would be copied
    assert_names(load_error(path, PathEscapeError), path / "task.yaml", "skills")


def test_symlink_inside_the_package_is_fine(tmp_path: Path) -> None:
    path = make_task(tmp_path, spec={"sources": ["sources/alias.txt"]})
    os.symlink(path / "sources/data.txt", path / "sources/alias.txt")
    assert load_task(path).sources_dir == (path / "sources").resolve()


def test_declared_resources_must_exist_except_informative_sources(tmp_path: Path) -> None:
    task = load_task(make_task(tmp_path / "s", spec={"sources": ["sources/gone.csv", "https://x.org/a"]}))
    assert task.spec.sources == ["sources/gone.csv", "https://x.org/a"]
    path = make_task(tmp_path, spec={"skills": ["lookup", "apt-package-manager"]})
    task = load_task(path)
    assert list(task.skill_dirs) == ["lookup"] and task.absent_skills == ["apt-package-manager"]
    assert task.warnings == [f"{(path / 'task.yaml').resolve()}: skills[1]: skill 'apt-package-manager' is not "
                             "in the package (a base skill of the runtime?)"]
    path = make_task(tmp_path / "b", spec={"pre_exec": ["sources/data.txt"]})
    error = load_error(path)
    assert_names(error, path / "task.yaml", "pre_exec[0]")
    assert "outside sources/" in error.expected


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    path = make_task(tmp_path, raw_yaml="task_id: demo_task\ntask: [unclosed\ncategory: x\n")
    error = load_error(path)
    assert_names(error, path / "task.yaml", "<yaml>")
    assert error.line is not None


def test_yaml_that_is_not_a_mapping(tmp_path: Path) -> None:
    path = make_task(tmp_path, raw_yaml="- just\n- a list\n")
    assert_names(load_error(path), path / "task.yaml", "<root>")


def test_unreadable_yaml(tmp_path: Path) -> None:
    path = make_task(tmp_path)
    (path / "task.yaml").write_bytes(b"task: \xff\xfe broken utf-8\n")
    assert_names(load_error(path), path / "task.yaml", "<file>")


def test_privacy_key_is_refused(tmp_path: Path) -> None:
    path = make_task(tmp_path, spec={"privacy": {"API_TOKEN": "sk-live-123"}})
    error = load_error(path)
    assert_names(error, path / "task.yaml", "privacy")
    assert "sk-live" not in str(error)


def test_bad_privacy_file_line(tmp_path: Path) -> None:
    path = make_task(tmp_path, files={".privacy": "API_TOKEN\nAPI_TOKEN=sk-live\n"})
    error = load_error(path)
    assert error.file == str((path / ".privacy").resolve()) and error.line == 2


def test_duplicate_task_ids_in_a_tree(tmp_path: Path) -> None:
    make_task(tmp_path / "tree", "folder")
    make_task(tmp_path / "tree" / "mirror", "uniclaw")
    with pytest.raises(CatalogError) as err:
        load_tasks(tmp_path / "tree")
    assert err.value.field == "task_id" and "unique" in err.value.expected
