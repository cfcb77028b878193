"""`headed: auto` starts the desktop only for a task that declares a GUI need; `true` always,
`false` never; a bad `gui:` value is refused when the task loads (one line: file, field)."""

from __future__ import annotations

import pytest
import yaml

from clawmark.catalog.errors import CatalogError
from clawmark.catalog.package import load_task
from clawmark.taskenv.desktop import gui_need, wants_desktop
from clawmark.taskenv.config import A11Y_ENV, TaskEnvConfig
from clawmark.taskenv.headed import HeadedRun

EVAL_RULE = "# rule\n## 5. Checkpoint Rubric\n- 1.0 Done: it is done.\n"


def _task(tmp_path, **spec):
    folder = tmp_path / "t_gui"
    (folder / "references").mkdir(parents=True)
    (folder / "references" / "eval_rule.md").write_text(EVAL_RULE)
    for service in spec.get("services", []):
        (folder / "services" / service["path"]).mkdir(parents=True, exist_ok=True)
        (folder / "services" / service["path"] / "run.sh").write_text("true\n")
    for skill in spec.get("skills", []):
        (folder / "skills" / skill).mkdir(parents=True, exist_ok=True)
        (folder / "skills" / skill / "SKILL.md").write_text(f"# {skill}\n")
    data = {"task_id": "t_gui", "category": "105_cross_platform", "task": "Do it.",
            "references": ["references/eval_rule.md"], **spec}
    (folder / "task.yaml").write_text(yaml.safe_dump(data))
    return load_task(folder)


def _service(name: str) -> dict:
    return {"name": name, "path": name, "start": "bash run.sh", "oneshot": True}


@pytest.mark.parametrize(("spec", "need"), [
    ({}, None),
    ({"recording": "low"}, "recording: low"),
    ({"skills": ["desktop-control"]}, "skill desktop-control"),
    ({"skills": ["csv-pipeline"]}, None),
    ({"services": [_service("libreoffice-gui-setup")]}, "service libreoffice-gui-setup"),
    ({"services": [_service("guidance-db")]}, None),  # a word that merely starts with gui
    ({"services": [_service("real-gui-setup")], "gui": False}, None),  # the explicit field wins
    ({"gui": True}, "gui: true"),
])
def test_auto_reads_the_gui_need_off_what_the_task_declares(tmp_path, spec, need):
    task = _task(tmp_path, **spec)
    assert gui_need(task) == need
    assert wants_desktop(task) is (need is not None)
    assert HeadedRun(task, tmp_path / "artifacts").enabled is (need is not None)
    a11y = {k: v for k, v in TaskEnvConfig().for_task(task).env.items() if k in A11Y_ENV}
    assert a11y == (A11Y_ENV if need else {})  # upstream's accessibility variables where a desktop runs


def test_true_and_false_win_over_any_need(tmp_path):
    assert wants_desktop(_task(tmp_path / "a", headed=True)) is True
    assert wants_desktop(_task(tmp_path / "b", headed=False, recording="high", gui=True)) is False


def test_a_gui_field_that_is_not_a_boolean_is_refused_when_the_task_loads(tmp_path):
    with pytest.raises(CatalogError, match=r"task\.yaml: gui: expected true or false"):
        _task(tmp_path, gui="sometimes")
