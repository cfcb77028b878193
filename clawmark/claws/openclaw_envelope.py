"""Reading ``openclaw agent --local --json`` output (2026.9.6): the envelope decides, never the
exit code (OpenClaw exits 1 on every failure and 0 on success alike for many shapes).

Shapes seen from the installed package:
* success: ``{payloads: [{text}], meta: {agentMeta: {usage, ...}, stopReason, completion, ...}}``
* CLI failure: ``{ok: false, error: {type, message}}`` (e.g. the provider rejected the request)
* turn failure: a success-shaped reply whose ``meta.error = {kind, message}`` and whose payloads
  carry ``isError: true`` (e.g. OpenClaw's own ``--timeout`` expiring: kind ``incomplete_turn``)
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawmark.claws.base import Usage
from clawmark.gateway.ledger import read_ledger

if TYPE_CHECKING:
    from clawmark.runtime.execution import ExecResult


def parse_envelope(stdout: str) -> dict[str, Any] | None:
    """The JSON document on stdout (``--json`` reserves stdout for it), or None."""
    text = stdout.strip()
    start = text.find("{")
    if start < 0:
        return None
    try:
        value = json.loads(text[start:])
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def envelope_error(envelope: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, message) of a failed turn, or None when the turn completed."""
    if envelope.get("ok") is False:
        error = envelope.get("error") or {}
        return str(error.get("type") or "cli_error"), str(error.get("message") or "")
    meta = envelope.get("meta") or {}
    if isinstance(meta.get("error"), dict):
        return str(meta["error"].get("kind") or "error"), str(meta["error"].get("message") or "")
    if meta.get("aborted"):
        return "aborted", "the run was aborted"
    flagged = [p.get("text", "") for p in envelope.get("payloads") or [] if isinstance(p, dict) and p.get("isError")]
    return ("error_payload", flagged[0]) if flagged else None


def final_text(envelope: dict[str, Any] | None) -> str:
    meta = (envelope or {}).get("meta") or {}
    if meta.get("finalAssistantVisibleText"):
        return str(meta["finalAssistantVisibleText"])
    return "\n".join(str(p.get("text") or "") for p in (envelope or {}).get("payloads") or [] if isinstance(p, dict))


def turn_verdict(envelope: dict[str, Any] | None, result: ExecResult, ledger: Path | None) -> dict[str, Any]:
    """TurnResult fields (success, timeout, finish_reason, exit_status, error, error_kind)."""
    if result.timed_out:
        return _failed("host_deadline", "openclaw still running at the host deadline", timeout=True)
    if envelope is None:
        return _failed("no_envelope", f"no JSON envelope on stdout (exit {result.exit_code}): "
                                      f"{(result.stdout + result.stderr)[-500:]}")
    error = envelope_error(envelope)
    if error is None:
        return {"success": True, "finish_reason": "stop", "exit_status": str(_stop_reason(envelope))}
    kind, message = error
    timed_out = kind == "incomplete_turn" and "timed out" in message
    return _failed(kind, message, timeout=timed_out, error_kind=_provider_kind(ledger))


def _failed(status: str, message: str, *, timeout: bool = False, error_kind: str | None = None) -> dict[str, Any]:
    return {"success": False, "timeout": timeout, "finish_reason": "timeout" if timeout else "error",
            "exit_status": status, "error": f"openclaw {status}: {message}"[:2000], "error_kind": error_kind}


def _stop_reason(envelope: dict[str, Any]) -> str:
    meta = envelope.get("meta") or {}
    return str(meta.get("stopReason") or (meta.get("completion") or {}).get("stopReason") or "stop")


def _provider_kind(ledger: Path | None) -> str | None:
    """The gateway's status of the executor's last call when it failed (rate_limited,
    upstream_unavailable, auth_error, ...): the attempt runner maps the infra ones to its status."""
    if ledger is None or not ledger.exists():
        return None
    calls = sorted((r for r in read_ledger(ledger) if r.role == "executor"), key=lambda r: r.ts)
    return calls[-1].status if calls and calls[-1].status != "ok" else None


def envelope_usage(envelope: dict[str, Any] | None) -> Usage | None:
    """OpenClaw's own usage of the turn (``meta.agentMeta.usage``); cost NaN when it has none."""
    agent_meta = ((envelope or {}).get("meta") or {}).get("agentMeta") or {}
    usage = agent_meta.get("usage")
    if not isinstance(usage, dict):
        return None
    cost = agent_meta.get("costUsd", (usage.get("cost") or {}).get("total"))
    cache_read, cache_write = int(usage.get("cacheRead") or 0), int(usage.get("cacheWrite") or 0)
    return Usage(input_tokens=int(usage.get("input") or 0) + cache_read + cache_write,
                 output_tokens=int(usage.get("output") or 0), cached_tokens=cache_read,
                 cost_usd=float(cost) if cost is not None else math.nan,
                 calls=int(agent_meta.get("assistantTurns") or 0))
