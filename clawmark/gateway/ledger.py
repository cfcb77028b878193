"""Usage ledger: one `UsageRecord` per model call, appended as JSONL to one file per attempt."""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel, Field, field_validator

TOKEN_FIELDS = ("input_tokens", "cached_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens")


class UsageRecord(BaseModel):
    """What one model call used and cost, attributed to (attempt, role)."""

    attempt_id: str
    role: str = Field(description="One of clawmark.results.usage.ROLES (checked by the client).")
    model: str = Field(description="The model string the call was made with (e.g. scripted/demo).")
    input_tokens: int = Field(0, description="Prompt tokens, cached and cache-write ones included.")
    cached_tokens: int = Field(0, description="Prompt tokens read from the provider's cache.")
    cache_write_tokens: int = Field(0, description="Prompt tokens written to the provider's cache.")
    output_tokens: int = Field(0, description="Completion tokens, reasoning ones included.")
    reasoning_tokens: int = 0
    cost_usd: float = Field(math.nan, description="NaN when the model has no known price.")
    latency_s: float = 0.0
    status: str = Field("ok", description="'ok' or the ModelError kind that ended the call.")
    retries: int = 0
    ts: float = Field(default_factory=time.time, description="Unix time the call ended.")
    stream: bool = False
    error: str | None = None
    replayed: bool = Field(False, description="A rerun stage's call answered from the attempt's replay "
                           "store (clawmark/gateway/replay.py): no tokens, no cost, no provider call.")
    refused: bool = Field(False, description="A call the gateway refused because it carried this role's "
                          "token to another role's route (status 'refused', `error` names the route): "
                          "no tokens, no cost, no provider call, not counted as a call of either role.")

    @field_validator("cost_usd", mode="before")
    @classmethod
    def _null_is_nan(cls, value: object) -> object:
        return math.nan if value is None else value  # JSON has no NaN: unpriced is written as null


class Ledger:
    """Append-only JSONL file of one attempt's usage; safe to share between threads."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def append(self, record: UsageRecord) -> None:
        line = (record.model_dump_json() + "\n").encode()
        # One O_APPEND write of the whole line, without a text file object around it (a quarter of
        # the ledger's cost per call on the gateway's path): lines of concurrent writers never mix.
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)
            try:
                written = os.write(fd, line)
                while written < len(line):  # a short write (a full disk mid-line raises instead)
                    written += os.write(fd, line[written:])
            finally:
                os.close(fd)

    def records(self) -> list[UsageRecord]:
        return read_ledger(self.path)


def refused_record(attempt_id: str, holder: str, model: str, route_role: str) -> UsageRecord:
    """The ledger line of a call `holder`'s token made to `route_role`'s route, refused unbilled."""
    return UsageRecord(attempt_id=attempt_id, role=holder, model=model, cost_usd=0.0, status="refused", refused=True,
                       error=f"{holder} token on the {route_role} route: refused (403), not billed")


def read_ledger(path: Path | str) -> list[UsageRecord]:
    path = Path(path)
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [UsageRecord.model_validate(json.loads(line)) for line in lines if line.strip()]


def summarize_ledger(path: Path | str) -> dict[str, dict[str, float]]:
    """Totals per role (`refused_calls`: calls refused for carrying the role's token to another
    role's route). `cost_usd` is NaN as soon as one call with tokens was unpriced:
    a partly unknown cost is unknown, never silently lower."""
    totals: dict[str, dict[str, float]] = defaultdict(lambda: {"calls": 0, "errors": 0, "cost_usd": 0.0})
    for rec in read_ledger(path):
        row = totals[rec.role]
        if rec.refused:  # never a call of either role: counted apart, costs nothing
            row["refused_calls"] = row.get("refused_calls", 0) + 1
            continue
        row["calls"] += not rec.replayed  # calls the provider answered; a replay is counted apart
        row["replayed"] = row.get("replayed", 0) + rec.replayed
        row["errors"] += rec.status != "ok"
        for name in TOKEN_FIELDS:
            row[name] = row.get(name, 0) + getattr(rec, name)
        row["cost_usd"] += rec.cost_usd
        row["latency_s"] = row.get("latency_s", 0.0) + rec.latency_s
        row["retries"] = row.get("retries", 0) + rec.retries
    return dict(totals)
