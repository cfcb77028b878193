"""The patch track's executor user: unset, the claw works as the instance image's root (as
SWE-bench's harness runs agents); `executor_user: "1000:1000"` runs every tool call of the claw
as that user on a /testbed it owns. The claw writes `id -u` and a file's owner into the repo, so
the extracted patch is the evidence."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from clawmark.attempts.patch import PatchAttemptConfig
from tests.support.attempt_fixtures import INI, attempt, gateway, store  # noqa: F401 - fixtures

pytestmark = pytest.mark.docker
MODEL = f"scripted/ref-whoami-{INI}"


@pytest.mark.parametrize(("user", "seen"), [(None, "uid=0 owner=0"), ("1000:1000", "uid=1000 owner=1000")])
def test_the_claw_works_as_the_configured_user(store, gateway, user, seen):  # noqa: F811
    row = attempt(INI, "reference", MODEL, store, gateway, executor_user=user)
    assert row.status == "unresolved", row.error_message  # whoami.txt fixes nothing
    assert f"+{seen}" in store.layout(row.sweep_id, row.cell_key).patch.read_text()


def test_a_user_that_is_not_a_uid_is_refused():
    with pytest.raises(ValidationError, match="executor_user"):
        PatchAttemptConfig(executor_user="claw; rm -rf /")
