"""The bare baseline: one call through the gateway, exactly the diff of the reply applied."""

from __future__ import annotations

import subprocess

import pytest

from clawmark.claws import ClawContext, get_claw
from clawmark.claws.bare import extract_diff
from clawmark.gateway.ledger import read_ledger
from clawmark.gateway.server import GatewayConfig, GatewayServer
from tests.support.claws_host import INI, HostExecutor, checkout, instance, run_hidden_tests


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path_factory.mktemp("ledgers"))) as server:
        yield server


def _send(gateway, tmp_path, cassette: str, attempt: str):
    repo = checkout(instance(INI), tmp_path / "repo")
    gateway.register_attempt(attempt, model=f"scripted/{cassette}", ledger_path=tmp_path / "ledger.jsonl")
    url = gateway.base_url(attempt, "executor")
    ctx = ClawContext(sandbox=HostExecutor(repo), attempt_id=attempt, model=f"scripted/{cassette}",
                      gateway_url=url, host_gateway_url=url, ledger_path=tmp_path / "ledger.jsonl",
                      workspace=str(repo), host_dir=tmp_path / "claw")
    return ctx, get_claw("bare").send_task(ctx, instance(INI).problem_statement, 0)


def _diff(repo) -> str:
    return subprocess.run(["git", "-C", str(repo), "diff"], capture_output=True, text=True, check=True).stdout


def test_diff_of_the_reply_is_applied_exactly(gateway, tmp_path):
    ctx, result = _send(gateway, tmp_path, f"bare-{INI}", "bare-ok")
    assert (result.exit_status, result.success) == ("applied", True)
    assert _diff(ctx.sandbox.root) == instance(INI).patch
    assert run_hidden_tests(instance(INI), ctx.sandbox.root, ["tests"]).returncode == 0
    assert len(read_ledger(ctx.ledger_path)) == 1


def test_reply_without_a_diff_changes_nothing(gateway, tmp_path):
    ctx, result = _send(gateway, tmp_path, f"bare-prose-{INI}", "bare-prose")
    assert (result.exit_status, result.finish_reason) == ("no_diff", "empty")
    assert _diff(ctx.sandbox.root) == ""


def test_diff_that_does_not_apply_leaves_the_tree_clean(gateway, tmp_path):
    ctx, _ = _send(gateway, tmp_path / "a", f"bare-{INI}", "bare-twice-a")
    again = get_claw("bare").send_task(ctx, "again", 1)  # the same diff on an already fixed tree
    assert (again.exit_status, again.success) == ("apply_failed", False)
    assert _diff(ctx.sandbox.root) == instance(INI).patch


def test_extract_diff_prefers_fenced_blocks_and_accepts_bare_diffs():
    diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
    assert extract_diff(f"text\n```python\nprint(1)\n```\n```diff\n{diff}```\n") == diff
    assert extract_diff(f"Here:\n{diff}") == diff
    assert extract_diff("no diff here") is None
