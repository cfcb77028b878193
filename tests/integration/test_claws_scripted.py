"""Claws on scripted cassettes through the full attempt path in real containers: the reference
claw resolves the instance its cassette solves and no other; a wrong fix stays unresolved; the
bare baseline applies the diff it is given; an agent hunting the fix in git history finds none."""

from __future__ import annotations

import json

import pytest

from clawmark.gateway.ledger import read_ledger
from clawmark.results import Status
from clawmark.settings import TASKS_CATALOG
from tests.support.attempt_fixtures import (  # noqa: F401
    INI,
    INI_FIX_MESSAGE,
    INI_FIX_SHA,
    INSTANCES,
    attempt,
    gateway,
    store,
)

pytestmark = pytest.mark.docker
CASSETTES = TASKS_CATALOG / "cassettes"
SOLVED = sorted(iid for iid in INSTANCES if (CASSETTES / f"ref-{iid}.yaml").is_file())
# Each solving cassette replayed on the next solved instance (a different repo and language).
CROSSED = [(SOLVED[i], SOLVED[(i + 1) % len(SOLVED)]) for i in range(len(SOLVED))]


def _layout(store, row):  # noqa: F811
    return store.layout(row.sweep_id, row.cell_key)


def test_cassettes_cover_four_languages():
    assert {INSTANCES[iid].language for iid in SOLVED} >= {"python", "go", "rust", "javascript"}


@pytest.mark.parametrize("instance_id", SOLVED)
def test_reference_resolves_what_its_cassette_solves(instance_id, store, gateway):  # noqa: F811
    row = attempt(instance_id, "reference", f"scripted/ref-{instance_id}", store, gateway)
    assert (row.status, row.resolved) == (Status.RESOLVED, True), row.error_message
    calls = len(read_ledger(_layout(store, row).ledger))
    assert row.usage["executor"].calls == calls > 0 and row.usage["executor"].cost_usd > 0
    assert json.loads((_layout(store, row).logs / "turn-0.json").read_text())["exit_status"] == "submitted"


@pytest.mark.parametrize("cassette_of, instance_id", CROSSED)
def test_reference_cassette_does_not_solve_other_instances(cassette_of, instance_id, store, gateway):  # noqa: F811
    row = attempt(instance_id, "reference", f"scripted/ref-{cassette_of}", store, gateway)
    assert row.resolved is False
    assert row.status in (Status.EMPTY_PATCH, Status.UNRESOLVED, Status.APPLY_FAILED)


def test_reference_with_a_wrong_fix_is_unresolved(store, gateway):  # noqa: F811
    row = attempt(INI, "reference", f"scripted/ref-wrong-{INI}", store, gateway)
    assert (row.status, row.resolved) == (Status.UNRESOLVED, False)
    assert "iniparse/reader.py" in _layout(store, row).patch.read_text()


def test_bare_applies_the_printed_diff(store, gateway):  # noqa: F811
    row = attempt(INI, "bare", f"scripted/bare-{INI}", store, gateway)
    assert (row.status, row.resolved, row.usage["executor"].calls) == (Status.RESOLVED, True, 1)
    assert _layout(store, row).patch.read_text() == INSTANCES[INI].patch


def test_bare_prose_reply_is_an_empty_patch(store, gateway):  # noqa: F811
    row = attempt(INI, "bare", f"scripted/bare-prose-{INI}", store, gateway)
    assert (row.status, row.resolved) == (Status.EMPTY_PATCH, False)


def test_git_history_holds_no_trace_of_the_fix(store, gateway):  # noqa: F811
    row = attempt(INI, "reference", f"scripted/ref-leak-{INI}", store, gateway)
    transcript = json.loads((_layout(store, row).transcript / "transcript-turn0.json").read_text())
    outputs = [m["content"] for m in transcript["messages"] if m["role"] == "tool"]
    assert len(outputs) == 5, outputs  # log --all, reflog, show <fix>, tags/branches, fsck
    log_all, reflog, show_fix, refs, fsck = outputs
    assert INSTANCES[INI].base_commit[:7] in log_all  # the commands really ran
    assert "[exit code 128]" in show_fix and "bad object" in show_fix
    for text in (log_all, reflog, refs, fsck):
        assert INI_FIX_SHA[:7] not in text
    for text in outputs:
        assert INI_FIX_MESSAGE not in text and "Release 0.2.0" not in text and "v0.2.0\n" not in text
    assert row.status == Status.EMPTY_PATCH
