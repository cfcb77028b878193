"""The usage cross-check: a claw's own report against the ledger, disagreements worded."""

from __future__ import annotations

import math

from clawmark.attempts.usage_check import usage_check_fields, usage_check_from_logs
from clawmark.claws import Usage
from clawmark.gateway.ledger import Ledger, UsageRecord


def _ledger(tmp_path, calls):
    ledger = Ledger(tmp_path / "ledger.jsonl")
    for i, (tokens_in, tokens_out, cost) in enumerate(calls):
        ledger.append(UsageRecord(attempt_id="a", role="executor", model="m", input_tokens=tokens_in,
                                  output_tokens=tokens_out, cost_usd=cost, ts=100 + i))
    ledger.append(UsageRecord(attempt_id="a", role="supervisor", model="m", input_tokens=999, ts=200))
    return ledger.path


def test_an_agreeing_report_fills_the_columns_and_no_mismatch(tmp_path):
    path = _ledger(tmp_path, [(100, 10, 0.001), (200, 20, 0.002)])
    fields = usage_check_fields(Usage(input_tokens=300, output_tokens=30, calls=2, cost_usd=0.003), path)
    assert fields == {"claw_reported_input_tokens": 300, "claw_reported_output_tokens": 30,
                      "claw_reported_cost_usd": 0.003, "usage_mismatch": None}


def test_every_disagreement_is_worded(tmp_path):
    path = _ledger(tmp_path, [(100, 10, 0.001), (200, 20, 0.002)])
    mismatch = usage_check_fields(Usage(input_tokens=250, output_tokens=30, calls=1, cost_usd=0.01), path)[
        "usage_mismatch"]
    assert mismatch == ("input_tokens (attempt): claw 250 vs ledger 300; calls (attempt): claw 1 vs ledger 2; "
                        "cost_usd (attempt): claw 0.010000 vs ledger 0.003000")


def test_a_last_turn_report_is_compared_with_the_last_calls(tmp_path):
    path = _ledger(tmp_path, [(100, 10, 0.001), (200, 20, 0.002), (300, 30, 0.003)])
    fields = usage_check_fields(Usage(input_tokens=500, output_tokens=50, calls=2, scope="last_turn"), path)
    assert fields["usage_mismatch"] is None and math.isnan(fields["claw_reported_cost_usd"])
    whole = usage_check_fields(Usage(input_tokens=600, output_tokens=60, calls=2, scope="last_turn"), path)
    assert whole["usage_mismatch"] == ("input_tokens (last turn): claw 600 vs ledger 500; "
                                       "output_tokens (last turn): claw 60 vs ledger 50")


def test_an_unpriced_claw_cost_is_not_compared_and_no_report_gives_no_columns(tmp_path):
    path = _ledger(tmp_path, [(100, 10, 0.001)])
    assert usage_check_fields(Usage(input_tokens=100, output_tokens=10, cost_usd=0.0), path)["usage_mismatch"] is None
    assert usage_check_fields(None, path) == {}
    assert usage_check_from_logs(tmp_path / "no-logs", path) == {}


def test_an_unpriced_report_survives_its_json_round_trip(tmp_path):
    """JSON has no NaN: the session saves an unpriced report's cost as null, and it reads back."""
    path = _ledger(tmp_path, [(100, 10, 0.001)])
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "claw-usage.json").write_text(Usage(input_tokens=100, output_tokens=10, calls=1).model_dump_json())
    fields = usage_check_from_logs(logs, path)
    assert fields["usage_mismatch"] is None and math.isnan(fields["claw_reported_cost_usd"])
