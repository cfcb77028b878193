"""Replay of the model calls a rerun stage already made and paid for (issue 10.1: recorded model
calls are cached by their inputs).

A retry-safe stage of an attempt (supervise, follow-up) that fails after its model call answered,
say the supervisor judged and then writing the judgement failed, is run again by the attempt's
stage runner (`flows/attempt.py`, CLAWMARK_STAGE_RETRIES). Its second run sends the same requests;
they get the answers the first run got instead of reaching the provider, billing it again and
perhaps getting another answer.

The seam: before each run of a stage the attempt tells the gateway which run begins,
`GatewayServer.begin_stage_run(attempt_id, run_name, replay=stage.retry_safe)` (the closed-loop
track does it in `clawmark/attempts/closed_loop_stages.py`). A run name the attempt began before
is a rerun. In a run, the n-th call of a role with one request is keyed (run name, role, request
hash, n), the request being the canonical JSON of what decides the answer: model, messages,
tools, sampling parameters (not the stream flags, not the `user` id). So a claw that repeats a
request within one run gets fresh answers, and a rerun gets its earlier runs' answers in order.
Runs begun with `replay=False` (executor turns: never rerun) keep and replay nothing, nor do calls
of an attempt that began no run.

A replayed call answers at once, as JSON or as a stream whichever its request asks for (a kept
answer is a chat completion; a streamed one is assembled from its chunks), and writes one ledger
line with `replayed: true`, no tokens and a cost of 0: the provider, the attempt's budget and its
row see the call once. Only calls that answered are kept. The store lives on the attempt's route
and goes with it (unregister, close). It holds one run's answers: a stage is rerun right after
its failed run, so when another run begins the earlier run's answers are dropped. At most
MAX_BYTES of them are kept, after which new answers are not (a rerun then calls the provider, as
without a store).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, AsyncIterator

from clawmark.gateway.ledger import UsageRecord
from clawmark.gateway.passthrough import OPENAI_BODY_PARAMS
from clawmark.gateway.recording import assemble_message

MAX_BYTES = 32 * 2**20
# What the answer depends on besides model, messages and tools; `user` is an id of the caller.
SAMPLING_PARAMS = OPENAI_BODY_PARAMS - {"user"}


def request_hash(call: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a call's answer-deciding fields (its client kwargs)."""
    request = {"model": call.get("model"), "messages": call.get("messages") or [], "tools": call.get("tools") or None,
               **{k: v for k, v in call.items() if k in SAMPLING_PARAMS}}
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class Slot:
    """Where one call's answer is kept; `answer` is the one kept by an earlier run, if any."""

    key: tuple[str, str, str, int]
    answer: dict | None


class ReplayStore:
    """One attempt's kept answers. Runs begin in the attempt's thread, calls come from the
    gateway's event loop: one lock."""

    def __init__(self, max_bytes: int = MAX_BYTES):
        self.max_bytes = max_bytes
        self._answers: dict[tuple[str, str, str, int], dict] = {}
        self._seen: Counter[tuple[str, str]] = Counter()  # (role, hash) -> calls in the current run
        self._run: str | None = None  # the replaying run under way
        self._last: str | None = None  # the run begun last, replaying or not
        self._bytes = 0
        self._lock = threading.Lock()

    def begin_run(self, run_name: str, replay: bool) -> None:
        with self._lock:
            if run_name != self._last:  # a stage is rerun right after its failed run, never later
                self._answers.clear()
                self._bytes = 0
            self._last, self._run = run_name, run_name if replay else None
            self._seen.clear()

    def claim(self, role: str, call: dict[str, Any]) -> Slot | None:
        """The call's slot in the current run (None: no replaying run under way)."""
        run = self._run
        if run is None:  # executor turns: not even hashed (the gateway's overhead budget)
            return None
        digest = request_hash(call)
        with self._lock:
            nth = self._seen[(role, digest)]
            self._seen[(role, digest)] += 1
            key = (run, role, digest, nth)
            return Slot(key, self._answers.get(key))

    def keep(self, slot: Slot | None, response: dict) -> None:
        if slot is None or not response.get("choices"):
            return
        size = len(json.dumps(response, default=str))
        with self._lock:
            current = slot.key[0] == self._last  # a late answer of a run already left behind is not
            if current and slot.key not in self._answers and self._bytes + size <= self.max_bytes:
                self._answers[slot.key] = response
                self._bytes += size

    @property
    def kept(self) -> int:
        with self._lock:
            return len(self._answers)


def replayed_record(attempt_id: str, role: str, model: str, stream: bool) -> UsageRecord:
    """The ledger line of a replayed call: no tokens, no cost (the first run's line has them)."""
    return UsageRecord(attempt_id=attempt_id, role=role, model=model, cost_usd=0.0, stream=stream, replayed=True)


async def kept_stream(stream: AsyncIterator[list[dict]], keep: Callable[[dict], None]) -> AsyncIterator[list[dict]]:
    """The stream as it comes; once it ended whole, its answer assembled and handed to `keep`."""
    chunks: list[dict] = []
    try:
        async for batch in stream:
            chunks.extend(batch)
            yield batch
    finally:
        await stream.aclose()  # type: ignore[attr-defined]
    keep(completion_from_chunks(chunks))


def completion_from_chunks(chunks: list[dict]) -> dict:
    first = chunks[0] if chunks else {}
    usage = next((c["usage"] for c in reversed(chunks) if c.get("usage")), None)
    finish = next((ch.get("finish_reason") for c in reversed(chunks) for ch in c.get("choices") or []
                   if ch.get("finish_reason")), "stop")
    message = assemble_message(chunks)
    for call in message.get("tool_calls") or []:
        call["type"] = "function"
    return {"id": first.get("id"), "object": "chat.completion", "created": first.get("created", 0),
            "model": first.get("model"), "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            **({"usage": usage} if usage else {})}


def replay_chunks(response: dict) -> list[dict]:
    """A kept completion as stream chunks: the message in one delta, then the usage chunk."""
    base = {"id": response.get("id"), "object": "chat.completion.chunk", "created": response.get("created", 0),
            "model": response.get("model")}
    chunks = []
    for choice in response.get("choices") or []:
        message = choice.get("message") or {}
        delta = {"role": "assistant", "content": message.get("content")}
        if message.get("tool_calls"):
            delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
        chunks.append(base | {"choices": [{"index": choice.get("index", 0), "delta": delta,
                                           "finish_reason": choice.get("finish_reason") or "stop"}]})
    if response.get("usage"):
        chunks.append(base | {"choices": [], "usage": response["usage"]})
    return chunks


async def no_more() -> AsyncIterator[list[dict]]:
    """The rest of a replayed stream: its first batch held everything."""
    return
    yield  # an async generator
