"""A model string may name a per-task family (`scripted/ref-{task_id}`): the call goes to the
task's member, while the cell identity keeps the family so it is one model column in results."""

from __future__ import annotations

from clawmark.attempts.patch import PatchAttemptConfig, identity_fields, model_for_task
from clawmark.catalog import load_instances
from clawmark.claws import get_claw
from clawmark.settings import TASKS_CATALOG


def test_placeholder_is_filled_per_task_and_plain_models_pass_through():
    assert model_for_task("scripted/ref-{task_id}", "x__y-1") == "scripted/ref-x__y-1"
    assert model_for_task("anthropic/claude-sonnet-4-6", "x__y-1") == "anthropic/claude-sonnet-4-6"


def test_identity_keeps_the_family_name():
    instance = load_instances(TASKS_CATALOG / "swe" / "instances.jsonl")[0]
    fields = identity_fields(instance, get_claw("nop"), "scripted/ref-{task_id}", 0, "s", PatchAttemptConfig())
    assert fields["model"] == "scripted/ref-{task_id}"
