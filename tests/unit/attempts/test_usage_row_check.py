"""row_cross_check: the patch row's cross-check columns from logs/claw-usage.json and the ledger;
no ledger or no report gives no columns, an unreadable report is said, never a lost row."""

from __future__ import annotations

from clawmark.attempts.usage_check import CLAW_USAGE_FILE, row_cross_check
from clawmark.claws import Usage
from clawmark.gateway.ledger import Ledger, UsageRecord


def test_a_report_against_the_ledger_fills_the_columns(tmp_path):
    ledger = Ledger(tmp_path / "ledger.jsonl")
    ledger.append(UsageRecord(attempt_id="a", role="executor", model="m", input_tokens=120, output_tokens=7,
                              cost_usd=0.2, ts=1))
    (tmp_path / CLAW_USAGE_FILE).write_text(Usage(input_tokens=100, output_tokens=7, calls=1,
                                                  cost_usd=0.2).model_dump_json())
    fields = row_cross_check(tmp_path, ledger.path)
    assert fields["claw_reported_input_tokens"] == 100
    assert fields["usage_mismatch"] == "input_tokens (attempt): claw 100 vs ledger 120"


def test_nothing_to_compare_gives_no_columns_and_garbage_is_said(tmp_path):
    assert row_cross_check(tmp_path, tmp_path / "absent.jsonl") == {}
    Ledger(tmp_path / "ledger.jsonl").append(UsageRecord(attempt_id="a", role="executor", model="m", ts=1))
    assert row_cross_check(tmp_path, tmp_path / "ledger.jsonl") == {}
    (tmp_path / CLAW_USAGE_FILE).write_text('{"input_tokens": "many"}')
    assert row_cross_check(tmp_path, tmp_path / "ledger.jsonl")["usage_mismatch"].startswith(
        "claw usage report unreadable")
