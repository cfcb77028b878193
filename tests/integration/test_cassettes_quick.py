"""The `quick-*` cassettes, a cheaper and weaker scripted model family: one look, one edit,
submit. Each says on its first line whether it is meant to resolve (`# expect: resolved` or
`# expect: unresolved`); replayed by the reference claw in real containers, it must do exactly
that, spending the tokens it declares, and fewer than the `ref-*` cassette of the same instance."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from clawmark.results import Status
from clawmark.settings import TASKS_CATALOG
from tests.support.attempt_fixtures import INSTANCES, attempt, gateway, store  # noqa: F401

pytestmark = pytest.mark.docker
CASSETTES = TASKS_CATALOG / "cassettes"
EXPECT_RE = re.compile(r"^# expect: (resolved|unresolved)$")
QUICK = sorted(iid for iid in INSTANCES if (CASSETTES / f"quick-{iid}.yaml").is_file())
WITH_REF = [iid for iid in QUICK if (CASSETTES / f"ref-{iid}.yaml").is_file()]


def _expects_resolved(instance_id: str) -> bool:
    first = (CASSETTES / f"quick-{instance_id}.yaml").read_text().split("\n", 1)[0]
    match = EXPECT_RE.match(first)
    assert match, f"quick-{instance_id}.yaml must start with '# expect: resolved|unresolved', got {first!r}"
    return match.group(1) == "resolved"


def _declared(cassette: str) -> tuple[int, int, int]:
    """(steps, input tokens, output tokens) the cassette declares; every step must declare both."""
    steps = yaml.safe_load((CASSETTES / f"{cassette}.yaml").read_text())["steps"]
    usages = [step.get("usage") or {} for step in steps]
    assert all("prompt" in u and "completion" in u for u in usages), f"{cassette}: a step has no usage numbers"
    return len(steps), sum(u["prompt"] for u in usages), sum(u["completion"] for u in usages)


def test_every_instance_has_a_quick_cassette_and_about_half_resolve():
    assert QUICK == sorted(INSTANCES)
    resolving = [iid for iid in QUICK if _expects_resolved(iid)]
    assert len(QUICK) // 2 - 1 <= len(resolving) <= len(QUICK) // 2 + 1, resolving


@pytest.mark.parametrize("instance_id", WITH_REF)
def test_quick_is_shorter_and_cheaper_than_ref(instance_id):
    q_steps, q_in, q_out = _declared(f"quick-{instance_id}")
    r_steps, r_in, r_out = _declared(f"ref-{instance_id}")
    assert q_steps < r_steps
    assert q_in + q_out < r_in + r_out, (q_in + q_out, r_in + r_out)


@pytest.mark.parametrize("instance_id", QUICK)
def test_quick_resolves_exactly_when_it_says(instance_id, store, gateway):  # noqa: F811
    row = attempt(instance_id, "reference", f"scripted/quick-{instance_id}", store, gateway)
    if _expects_resolved(instance_id):
        assert (row.status, row.resolved) == (Status.RESOLVED, True), row.error_message
    else:
        # A wrong edit is still an edit: the patch applies, and a test of the issue still fails.
        assert (row.status, row.resolved) == (Status.UNRESOLVED, False), row.error_message
        report = json.loads(store.layout(row.sweep_id, row.cell_key).report.read_text())
        assert report[instance_id]["tests_status"]["FAIL_TO_PASS"]["failure"]
    steps, tokens_in, tokens_out = _declared(f"quick-{instance_id}")
    usage = row.usage["executor"]
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (steps, tokens_in, tokens_out)
