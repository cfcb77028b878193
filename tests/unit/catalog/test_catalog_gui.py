"""`headed: auto` finds every upstream task whose text needs a desktop: the 11 the service-name
rule missed are found by their text or by clawmark's overlay, and an overlay hint is part of the
task's hash (upstream's files stay as they are)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from clawmark.catalog import load_task, load_tasks
from clawmark.catalog.gui import gui_need
from clawmark.catalog.overlay import Overlay, TaskHint, apply_overlay, load_overlay
from clawmark.taskenv.desktop import wants_desktop
from tests.support.paths import UCB_SAMPLE, beside_checkout

# Beside the project, as the other sample tests find it; the environment may say elsewhere.
SAMPLE = Path(os.environ.get("CLAWMARK_UCB_SAMPLE", UCB_SAMPLE))
# The public release checked out (HKU-MMLab/UniClawBench); the sample holds one of the 11.
RELEASE = Path(os.environ.get("CLAWMARK_UCB_RELEASE", beside_checkout("ucb-release")))
MISSED_BEFORE = ["task_002_vscode_hello_world", "task_105_01_rag_survey_gui_zotero_obsidian",
                 "task_105_04_rag_benchmark_gui_zotero_obsidian_calc", "task_105_33_calendar_scheduling",
                 "task_105_37_obsidian_vault_cleanup", "task_105_38_ics_conflict_calendar",
                 "task_205_01_rag_survey_gui_zotero_obsidian", "task_205_04_rag_benchmark_gui_zotero_obsidian_calc",
                 "task_205_33_calendar_scheduling", "task_205_37_obsidian_vault_cleanup",
                 "task_205_38_ics_conflict_calendar"]
RULE = "# rule\n## 5. Checkpoint Rubric\n- 1.0 Done: it is done.\n"


def _upstream_tree() -> Path:
    return RELEASE if (RELEASE / "tasks" / "001_smoketest").is_dir() else SAMPLE


def test_each_task_the_old_rule_missed_gets_the_desktop() -> None:
    tree = _upstream_tree()
    tasks = {t.task_id: t for t in load_tasks(tree)}
    present = [task_id for task_id in MISSED_BEFORE if task_id in tasks]
    assert present and (tree == SAMPLE or present == MISSED_BEFORE)
    needs = {task_id: gui_need(tasks[task_id]) for task_id in present}
    assert all(needs.values()), needs
    assert all(wants_desktop(tasks[task_id]) for task_id in present)
    if tree == RELEASE:  # 16 by service name + the 11: the 27 whose text needs a desktop, no more
        assert sum(gui_need(t) is not None for t in tasks.values()) == 27


def _upstream_task(root: Path, task_id: str, text: str) -> Path:
    category = "105_cross_platform"
    (root / "injection" / category / task_id / "references").mkdir(parents=True)
    (root / "injection" / category / task_id / "references" / "eval_rule.md").write_text(RULE)
    file = root / "tasks" / category / f"{task_id}.yaml"
    file.parent.mkdir(parents=True)
    file.write_text(yaml.safe_dump({"task_id": task_id, "category": category, "task": text,
                                    "references": ["references/eval_rule.md"]}, allow_unicode=True))
    return file


@pytest.mark.parametrize(("text", "need"), [
    ("Launch the real Obsidian desktop app and clean the vault.", "task text 'desktop app'"),
    ("Use DISPLAY=:99 to launch gnome-calendar.", "task text 'DISPLAY=:99'"),
    ("请在真正的 Obsidian 桌面应用中打开它。", "task text '桌面应用'"),
    ("Take a screenshot of the pricing page in the browser.", None),  # a headless browser does that
    ("Check the GUI strings of the extension's package.json.", None),  # code about a GUI, no desktop
])
def test_the_text_rule_reads_a_desktop_need_and_nothing_looser(tmp_path: Path, text: str, need: str | None) -> None:
    assert gui_need(load_task(_upstream_task(tmp_path, "task_105_90_probe", text))) == need


def test_an_overlay_hint_sets_gui_for_upstream_tasks_only_and_changes_the_hash(tmp_path: Path) -> None:
    file = _upstream_task(tmp_path / "up", "task_105_38_ics_conflict_calendar", "Plan the week.")
    upstream = load_task(file)
    assert upstream.spec.gui is True and upstream.hints["gui"].startswith("overlay: ")
    assert gui_need(upstream) == upstream.hints["gui"]
    hint = load_overlay().tasks["task_105_38_ics_conflict_calendar"]
    assert hint.gui is True and hint.why
    bare, hints = apply_overlay(upstream.spec.model_copy(update={"gui": None}), "uniclaw", Overlay())
    assert bare.gui is None and hints == {}
    as_own, hints = apply_overlay(bare, "folder")  # clawmark's own layout: never from the overlay
    assert as_own.gui is None and hints == {}
    told, _ = apply_overlay(bare.model_copy(update={"gui": False}), "uniclaw",
                            Overlay(tasks={bare.task_id: TaskHint(gui=True, why="x")}))
    assert told.gui is False  # the task's own field wins
    hashes = {upstream.content_hash(), upstream.model_copy(update={"spec": bare}).content_hash()}
    assert len(hashes) == 2  # the hint is part of the task hash
