"""The closed-loop runtime preamble (clawmark/claws/preamble.py, attempts/closed_loop_prompt.py):
the facts it states for headless and headed tasks, the skills' entry points, EDICT's routing
note, and that it is protocol (the cell key moves with it)."""

from __future__ import annotations

import pytest

import clawmark
from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig, identity_fields, role_models
from clawmark.attempts.closed_loop_prompt import first_message
from clawmark.catalog import load_tasks
from clawmark.claws import get_claw
from clawmark.settings import TASKS_CATALOG
from tests.support.paths import UCB_SAMPLE

BASE = TASKS_CATALOG / "base_skills"


@pytest.fixture(scope="module")
def tasks():
    return {t.task_id: t for t in load_tasks(TASKS_CATALOG / "closed_loop")}


def test_a_headless_task_gets_workspace_results_skills_and_the_final_text_rule(tasks):
    task = tasks["en_101_sales_total"]
    message = first_message(task, get_claw("nanobot"), ClosedLoopAttemptConfig(base_skills=[BASE / "web-search"]))
    head, body = message.split("\n\n", 1)
    assert body.strip() == task.prompt().strip()  # the task as written, after the facts
    assert "- Workspace: /tmp_workspace;" in head and "- Results root: /tmp_workspace/results." in head
    assert "end your turn with a final text message" in head
    assert head.endswith("- /root/skills/csv-summary/SKILL.md\n- /root/skills/web-search/SKILL.md")
    assert "Screen:" not in head and "Browser:" not in head  # no display in a headless container


def test_a_headed_task_gets_the_screen_and_the_browser(tasks):
    task = tasks["en_106_dashboard_chart"]
    config = ClosedLoopAttemptConfig(base_skills=[BASE / "browser-control"])
    message = first_message(task, get_claw("reference"), config)
    assert "exactly 1440 x 900 pixels" in message and "(1439, 899)" in message
    assert "DevTools endpoint at http://127.0.0.1:9222 (see /root/skills/browser-control/SKILL.md)" in message


def test_only_edict_routes_through_its_court_and_the_bare_task_is_an_option(tasks):
    task, config = tasks["zh_201_invoice_sum"], ClosedLoopAttemptConfig()
    edict = first_message(task, get_claw("edict"), config)
    facts, note, body = edict.split("\n\n", 2)
    assert facts.startswith("Runtime context") and note.startswith("EDICT routing note:")
    assert body.strip() == task.prompt().strip()
    assert "routing note" not in first_message(task, get_claw("openclaw"), config)
    assert first_message(task, get_claw("edict"), ClosedLoopAttemptConfig(runtime_preamble=False)) == task.prompt()
    no_skills = first_message(tasks["en_102_find_port"], get_claw("hermes"), config)
    assert "SKILL.md before you use it; each lives in its own folder under /root/skills):\n- none" in no_skills


def test_the_preamble_is_in_the_cell_key_and_the_protocol_version(tasks):
    task, claw = tasks["en_101_sales_total"], get_claw("nanobot")

    def key(config):
        fields = identity_fields(task, claw, "scripted/x", 0, "s", config, role_models(task, "scripted/x", config))
        return fields["model_params_hash"]

    assert key(ClosedLoopAttemptConfig()) != key(ClosedLoopAttemptConfig(runtime_preamble=False))
    assert clawmark.PROTOCOL_VERSION == "2"


def test_an_upstream_task_announces_upstreams_base_skills_by_default():
    """A sweep that names no base skills gives upstream-layout tasks upstream's five (taskenv's
    default): the preamble must announce what the container really gets, not an empty list."""

    from clawmark.taskenv.config import UPSTREAM_BASE_SKILLS

    sample = UCB_SAMPLE
    task = next(t for t in load_tasks(sample) if t.layout == "uniclaw")
    message = first_message(task, get_claw("nanobot"), ClosedLoopAttemptConfig())
    for name in UPSTREAM_BASE_SKILLS:
        assert f"- /root/skills/{name}/SKILL.md" in message, name
