"""`complete`: THE one place every model call goes through (our roles call it directly, the
HTTP gateway calls its async twins for claws). Timeout, retries on 429/5xx/connection only,
typed errors, budget check before the call, one UsageRecord per call in the attempt's ledger."""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass
from typing import Any, AsyncIterator

from pydantic import BaseModel, Field

from clawmark.gateway import passthrough
from clawmark.gateway.budget import Budget
from clawmark.gateway.errors import CallAbandoned, InvalidRequest, ModelError
from clawmark.gateway.ledger import Ledger, UsageRecord
from clawmark.gateway.prices import PriceTable, default_prices
from clawmark.gateway.recording import CassetteRecorder, assemble_message
from clawmark.gateway.upstream import backoff_delay, litellm_module, litellm_target, to_model_error
from clawmark.results.usage import ROLES

__all__ = ["ClientConfig", "Completion", "complete", "acomplete", "astream", "default_prices"]


class ClientConfig(BaseModel):
    """Limits of one model call."""

    timeout_s: float = Field(300.0, gt=0, description="Per upstream request, streaming included.")
    max_retries: int = Field(4, ge=0, description="Retries after the first try, for retryable errors only.")
    backoff_base_s: float = Field(1.0, ge=0, description="First backoff ceiling; doubles per retry.")
    backoff_max_s: float = Field(60.0, ge=0, description="Longest single wait, Retry-After included.")


@dataclass
class Completion:
    response: dict
    usage: UsageRecord


class _Call:
    """Bookkeeping of one logical call across its retries."""

    def __init__(self, role: str, attempt_id: str, model: str, ledger: Ledger | None, budget: Budget | None,
                 config: ClientConfig | None, prices: PriceTable | None, stream: bool = False):
        if role not in ROLES:  # refused before any spend: the results table could not attribute it
            raise InvalidRequest(f"role {role!r}: expected one of {', '.join(ROLES)}", status_code=400)
        self.role, self.attempt_id, self.model = role, attempt_id, model
        self.ledger, self.budget, self.stream = ledger, budget, stream
        self.config = config or ClientConfig()
        self.prices = prices or default_prices()
        self.retries = 0
        self.started = time.perf_counter()

    def litellm_kwargs(self, messages: list[dict], tools: list | None, params: dict[str, object]) -> dict[str, Any]:
        kwargs = {**params, **litellm_target(self.model), "messages": messages}
        if tools:
            kwargs["tools"] = tools
        # We retry ourselves (typed, Retry-After aware); litellm and the openai SDK must not.
        return kwargs | {"timeout": self.config.timeout_s, "max_retries": 0, "num_retries": 0}

    def direct(self, messages: list[dict], tools: list | None, params: dict[str, object]):
        """(target, body) for the passthrough path, or (None, None) for litellm."""
        target = passthrough.direct_target(self.model, params)
        if target is None:
            return None, None
        body = {k: v for k, v in params.items() if k in passthrough.OPENAI_BODY_PARAMS} | {"messages": messages}
        return target, body | ({"tools": tools} if tools else {})

    def check_budget(self) -> None:
        if self.budget is None:
            return
        try:
            self.budget.check()
        except ModelError as err:
            self.record(None, err)
            raise

    def next_delay(self, exc: Exception) -> float:
        """Delay before the next try, or raise the typed error (recorded) when retrying cannot help."""
        err = to_model_error(exc)
        # A Retry-After past our longest wait: retrying sooner is refused again, so give up now.
        too_long = (err.retry_after_s or 0.0) > self.config.backoff_max_s
        if not err.retryable or too_long or self.retries >= self.config.max_retries:
            self.record(None, err)
            raise err from exc
        self.retries += 1
        return backoff_delay(self.retries, err.retry_after_s, base_s=self.config.backoff_base_s,
                             max_s=self.config.backoff_max_s)

    def record(self, usage: dict | None, err: ModelError | None = None) -> UsageRecord:
        tokens = usage_tokens(usage or {})
        priced = {k: tokens[k] for k in ("input_tokens", "cached_tokens", "cache_write_tokens", "output_tokens")}
        # A reply without usage, or a call cut off mid-way, spent unknown tokens: NaN, not zero.
        unknown = usage is None and (err is None or isinstance(err, CallAbandoned))
        cost = math.nan if unknown else self.prices.cost(self.model, **priced)
        record = UsageRecord(
            attempt_id=self.attempt_id, role=self.role, model=self.model, **tokens, cost_usd=cost,
            latency_s=time.perf_counter() - self.started, status=err.kind if err else "ok",
            retries=self.retries, stream=self.stream, error=str(err)[:500] if err else None)
        if self.budget is not None:
            self.budget.charge(record.cost_usd)
        if self.ledger is not None:
            self.ledger.append(record)
        return record


def usage_tokens(usage: dict) -> dict[str, int]:
    prompt_details = usage.get("prompt_tokens_details") or {}
    completion_details = usage.get("completion_tokens_details") or {}
    return {
        "input_tokens": int(usage.get("prompt_tokens") or 0),
        "cached_tokens": int(prompt_details.get("cached_tokens") or usage.get("cache_read_input_tokens") or 0),
        "cache_write_tokens": int(usage.get("cache_creation_input_tokens") or 0),
        "output_tokens": int(usage.get("completion_tokens") or 0),
        "reasoning_tokens": int(completion_details.get("reasoning_tokens") or 0),
    }


def complete(*, role: str, attempt_id: str, model: str, messages: list[dict], tools: list | None = None,
             ledger: Ledger | None = None, budget: Budget | None = None, config: ClientConfig | None = None,
             prices: PriceTable | None = None, recorder: CassetteRecorder | None = None,
             **params: object) -> Completion:
    """One chat completion (blocking). Raises a ModelError subclass; the ledger gets a record either way."""
    call = _Call(role, attempt_id, model, ledger, budget, config, prices)
    call.check_budget()
    kwargs = call.litellm_kwargs(messages, tools, params)
    while True:
        try:
            response = litellm_module().completion(**kwargs).model_dump()
        except Exception as exc:  # noqa: BLE001 - classified by to_model_error
            time.sleep(call.next_delay(exc))
        else:
            _record_reply(recorder, messages, response)
            return Completion(response=response, usage=call.record(response.get("usage")))


async def acomplete(*, role: str, attempt_id: str, model: str, messages: list[dict], tools: list | None = None,
                    ledger: Ledger | None = None, budget: Budget | None = None, config: ClientConfig | None = None,
                    prices: PriceTable | None = None, recorder: CassetteRecorder | None = None,
                    **params: object) -> Completion:
    """`complete` for an event loop."""
    call = _Call(role, attempt_id, model, ledger, budget, config, prices)
    call.check_budget()
    kwargs = call.litellm_kwargs(messages, tools, params)
    target, body = call.direct(messages, tools, params)
    while True:
        try:
            if target is not None:
                response = await passthrough.post(target, body, call.config.timeout_s)
            else:
                response = (await litellm_module().acompletion(**kwargs)).model_dump()
        except asyncio.CancelledError:  # the attempt was closed with this call running
            _abandon(call)
            raise
        except Exception as exc:  # noqa: BLE001 - classified by to_model_error
            await _backoff(call, exc)
        else:
            _record_reply(recorder, messages, response)
            return Completion(response=response, usage=call.record(response.get("usage")))


async def astream(*, role: str, attempt_id: str, model: str, messages: list[dict], tools: list | None = None,
                  ledger: Ledger | None = None, budget: Budget | None = None, config: ClientConfig | None = None,
                  prices: PriceTable | None = None, recorder: CassetteRecorder | None = None,
                  **params: object) -> AsyncIterator[list[dict]]:
    """Streamed chat completion: yields batches (lists) of OpenAI chunk dicts — what arrived
    together — the last chunk carrying usage. Retries happen only before the first batch; the
    call is recorded once, at the final usage chunk or when the stream ends or breaks."""
    call = _Call(role, attempt_id, model, ledger, budget, config, prices, stream=True)
    call.check_budget()
    stream, batch = await _open_stream(call, messages, tools, params)
    tally = _StreamTally(call, recorder, messages)
    try:
        while True:
            tally.see(batch)
            yield batch
            batch = await anext(stream)
    except StopAsyncIteration:
        tally.finish()
    except Exception as exc:  # noqa: BLE001 - a stream broken half-way is recorded, then re-raised typed
        err = to_model_error(exc)
        tally.finish(err)
        raise err from exc
    finally:  # the consumer went away before the end (client disconnect): tokens were still spent
        tally.finish(CallAbandoned("stream abandoned by the caller"))


async def _open_stream(call: _Call, messages: list[dict], tools: list | None, params: dict[str, object]):
    """(stream of batches, first batch), retrying until the first batch arrives."""
    streaming = {"stream": True, "stream_options": {"include_usage": True}}
    target, body = call.direct(messages, tools, params)
    while True:
        try:
            if target is not None:
                stream = passthrough.post_stream(target, body | streaming, call.config.timeout_s)
            else:
                stream = _dumped(await litellm_module().acompletion(**call.litellm_kwargs(messages, tools, params), **streaming))
            return stream, await anext(stream)
        except asyncio.CancelledError:  # the attempt was closed with this call running
            _abandon(call)
            raise
        except Exception as exc:  # noqa: BLE001 - classified by to_model_error
            await _backoff(call, exc)


def _abandon(call: _Call) -> None:
    call.record(None, CallAbandoned("cancelled: the attempt was closed while the call ran"))


async def _backoff(call: _Call, exc: Exception) -> None:
    delay = call.next_delay(exc)  # raises (recorded) when retrying cannot help
    try:
        await asyncio.sleep(delay)
    except asyncio.CancelledError:
        _abandon(call)
        raise


class _StreamTally:
    """Usage (and, when recording, the chunks) of one stream; records the call exactly once."""

    def __init__(self, call: _Call, recorder: CassetteRecorder | None, messages: list[dict]):
        self.call, self.recorder, self.messages = call, recorder, messages
        self.usage: dict | None = None
        self.chunks: list[dict] = []
        self.done = False

    def see(self, batch: list[dict]) -> None:
        self.usage = next((c["usage"] for c in reversed(batch) if c.get("usage")), self.usage)
        if self.recorder is not None:
            self.chunks.extend(batch)
        if self.usage is not None and not batch[-1].get("choices"):
            self.finish()  # the final usage chunk: record before the caller may hang up

    def finish(self, err: ModelError | None = None) -> None:
        if self.done:
            return
        self.done = True
        if self.recorder is not None and err is None:
            self.recorder.record(self.messages, assemble_message(self.chunks), self.usage)
        self.call.record(self.usage, err)


async def _dumped(stream) -> AsyncIterator[list[dict]]:
    async for chunk in stream:
        yield [chunk.model_dump()]


def _record_reply(recorder: CassetteRecorder | None, messages: list[dict], response: dict) -> None:
    if recorder is not None and response.get("choices"):
        recorder.record(messages, response["choices"][0].get("message") or {}, response.get("usage"))
