"""The usage cross-check: a claw's own usage report against the gateway ledger, per attempt.

The ledger is the truth; a claw's figures (``ClawAdapter.collect_usage``) are only compared
with it, and every disagreement is written into the row (``usage_mismatch``), never smoothed
over. A report covering only the last turn (``Usage.scope == "last_turn"``, Nanobot) is compared
with the ledger's last ``Usage.calls`` calls of the role. Tokens must agree exactly (claws copy
the provider's usage blocks); a cost is compared only when the claw priced the calls (a zero or
NaN cost means it did not) and the ledger priced them too, within ``COST_TOLERANCE``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from clawmark.claws.base import Usage
from clawmark.gateway.ledger import UsageRecord, read_ledger

COST_TOLERANCE = 0.01  # relative: claws round prices and sums differently
CLAW_USAGE_FILE = "claw-usage.json"  # in the attempt's logs folder (written by the session)


def usage_check_fields(reported: Usage | None, ledger: Path, role: str = "executor") -> dict[str, Any]:
    """The row's four cross-check columns for ``reported`` against ``ledger``."""
    if reported is None:
        return {}
    records = _covered(reported, [r for r in read_ledger(ledger) if r.role == role and r.status == "ok"])
    return {
        "claw_reported_input_tokens": reported.input_tokens,
        "claw_reported_output_tokens": reported.output_tokens,
        "claw_reported_cost_usd": reported.cost_usd,
        "usage_mismatch": "; ".join(_disagreements(reported, records)) or None,
    }


def usage_check_from_logs(logs_dir: Path, ledger: Path, role: str = "executor") -> dict[str, Any]:
    """The same, for the report the session saved as ``logs/claw-usage.json`` (none: no columns)."""
    path = logs_dir / CLAW_USAGE_FILE
    reported = Usage.model_validate_json(path.read_text()) if path.is_file() else None
    return usage_check_fields(reported, ledger, role)


def row_cross_check(logs_dir: Path, ledger: Path, role: str = "executor") -> dict[str, Any]:
    """The cross-check columns of an attempt's row; an unreadable claw report loses the
    cross-check (said in ``usage_mismatch``), never the row."""
    if not ledger.is_file():
        return {}
    try:
        return usage_check_from_logs(logs_dir, ledger, role)
    except ValueError as exc:
        return {"usage_mismatch": f"claw usage report unreadable: {exc}"[:500]}


def _covered(reported: Usage, records: list[UsageRecord]) -> list[UsageRecord]:
    if reported.scope == "last_turn" and reported.calls > 0:
        return sorted(records, key=lambda r: r.ts)[-reported.calls:]
    return records


def _disagreements(reported: Usage, records: list[UsageRecord]) -> list[str]:
    scope = "last turn" if reported.scope == "last_turn" else "attempt"
    pairs = [("input_tokens", reported.input_tokens, sum(r.input_tokens for r in records)),
             ("output_tokens", reported.output_tokens, sum(r.output_tokens for r in records))]
    if reported.calls:
        pairs.append(("calls", reported.calls, len(records)))
    found = [f"{name} ({scope}): claw {mine} vs ledger {truth}" for name, mine, truth in pairs if mine != truth]
    if (cost := _cost_disagreement(reported.cost_usd, records)) is not None:
        found.append(f"cost_usd ({scope}): {cost}")
    return found


def _cost_disagreement(claimed: float, records: list[UsageRecord]) -> str | None:
    truth = sum(r.cost_usd for r in records)
    if math.isnan(claimed) or claimed == 0 or math.isnan(truth):
        return None  # the claw did not price the calls, or the ledger could not
    if abs(claimed - truth) <= COST_TOLERANCE * max(abs(truth), 1e-12):
        return None
    return f"claw {claimed:.6f} vs ledger {truth:.6f}"
