"""Replay of a rerun stage's model calls (issue 10.1), through the real gateway over HTTP in front of
a fake provider that numbers its answers and counts its requests: a rerun of a stage run gets the
answers its failed run got and paid for (one provider call, one billed and one replayed ledger
line, the budget charged once), streamed or not; a request repeated within one run, another run,
another attempt, a run that does not replay, a failed call and a re-registered attempt all reach
the provider."""

from __future__ import annotations

import json

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from clawmark.attempts.stages import retryable
from clawmark.gateway.ledger import read_ledger, summarize_ledger
from clawmark.gateway.prices import Price
from clawmark.gateway.server import GatewayConfig, GatewayServer
from tests.support.gateway_fakes import FakeUpstream

MODEL = "openai/replay-fake"
PRICE = Price(input=2.0, output=8.0)
USAGE = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
ASK = [{"role": "user", "content": "judge this turn"}]


class NumberingUpstream(FakeUpstream):
    """Answers `answer <n>` to its n-th request (1-based), streamed when asked; `fail_first`
    requests are refused with HTTP 400 first."""

    def __init__(self, fail_first: int = 0):
        self.fail_first = fail_first
        super().__init__(usage=USAGE)

    def _app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat(request: Request):
            self.requests.append(await request.json())
            if len(self.requests) <= self.fail_first:
                return JSONResponse({"error": {"message": "refused", "type": "invalid"}}, 400)
            text, base = f"answer {len(self.requests)}", {"id": f"r{len(self.requests)}", "created": 0, "model": "f"}
            if not self.requests[-1].get("stream"):
                message = {"role": "assistant", "content": text}
                return base | {"object": "chat.completion", "usage": USAGE,
                               "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
            chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": text[:3]}}]},
                      {"choices": [{"index": 0, "delta": {"content": text[3:]}, "finish_reason": "stop"}]},
                      {"choices": [], "usage": USAGE}]
            lines = [f"data: {json.dumps(base | {'object': 'chat.completion.chunk'} | c)}\n\n" for c in chunks]
            return StreamingResponse(iter([*lines, "data: [DONE]\n\n"]), media_type="text/event-stream")

        return app


@pytest.fixture
def upstream():
    with NumberingUpstream() as fake:
        yield fake


@pytest.fixture
def gateway(tmp_path):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path)) as server:
        yield server


def register(gateway: GatewayServer, upstream: NumberingUpstream, attempt: str = "att1", budget: float = 1.0):
    return gateway.register_attempt(attempt, model=MODEL, budget_usd=budget, fallback_price=PRICE,
                                    params={"api_base": upstream.base_url, "api_key": "k"})


def ask(gateway: GatewayServer, attempt: str = "att1", role: str = "supervisor", stream: bool = False,
        messages: list[dict] = ASK, **extra) -> str:
    """The reply's text, read the way the claw would (the SSE deltas joined when streamed)."""
    body = {"model": "whatever", "messages": messages, "stream": stream, **extra}
    if stream:
        body["stream_options"] = {"include_usage": True}
    reply = httpx.post(gateway.base_url(attempt, role) + "/chat/completions", json=body, timeout=30)
    assert reply.status_code == 200, reply.text
    if not stream:
        return reply.json()["choices"][0]["message"]["content"]
    events = [json.loads(line[6:]) for line in reply.text.splitlines() if line.startswith("data: {")]
    assert reply.text.rstrip().endswith("data: [DONE]") and events[-1]["usage"] == USAGE
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in events if c["choices"])


@pytest.mark.parametrize("first_stream, rerun_stream", [(False, False), (True, True), (False, True), (True, False)])
def test_a_rerun_stage_replays_the_answer_its_failed_run_paid_for(gateway, upstream, first_stream, rerun_stream):
    route = register(gateway, upstream)
    gateway.begin_stage_run("att1", "supervise[1]")
    assert ask(gateway, stream=first_stream) == "answer 1"
    spent = route.budget("supervisor").spent_usd
    assert spent == pytest.approx(2.0 * 1000 / 1e6 + 8.0 * 100 / 1e6)
    gateway.begin_stage_run("att1", "supervise[1]")  # the same run again: the stage is retried
    assert ask(gateway, stream=rerun_stream) == "answer 1"
    assert len(upstream.requests) == 1 and route.budget("supervisor").spent_usd == spent
    billed, replayed = read_ledger(route.ledger.path)
    assert (billed.replayed, billed.status, billed.cost_usd, billed.input_tokens) == (False, "ok", spent, 1000)
    assert (replayed.replayed, replayed.status, replayed.cost_usd, replayed.input_tokens) == (True, "ok", 0.0, 0)
    assert (replayed.role, replayed.model, replayed.stream) == ("supervisor", MODEL, rerun_stream)
    totals = summarize_ledger(route.ledger.path)["supervisor"]
    assert (totals["calls"], totals["replayed"], totals["cost_usd"]) == (1, 1, pytest.approx(spent))


def test_a_request_repeated_within_one_run_gets_fresh_answers_and_a_rerun_replays_them_in_order(gateway, upstream):
    route = register(gateway, upstream)
    gateway.begin_stage_run("att1", "follow-up[1]")
    assert [ask(gateway, role="user_simulator") for _ in range(2)] == ["answer 1", "answer 2"]
    gateway.begin_stage_run("att1", "follow-up[1]")
    assert [ask(gateway, role="user_simulator") for _ in range(3)] == ["answer 1", "answer 2", "answer 3"]
    assert len(upstream.requests) == 3
    assert [r.replayed for r in read_ledger(route.ledger.path)] == [False, False, True, True, False]


def test_another_run_role_or_request_reaches_the_provider(gateway, upstream):
    register(gateway, upstream)
    gateway.begin_stage_run("att1", "supervise[1]")
    assert ask(gateway) == "answer 1"
    gateway.begin_stage_run("att1", "supervise[2]")  # the next turn's judgement: not a rerun
    assert ask(gateway) == "answer 2"
    gateway.begin_stage_run("att1", "supervise[2]")
    assert ask(gateway, role="user_simulator") == "answer 3"  # the same request from another role
    assert ask(gateway, temperature=0.5) == "answer 4"  # a sampling parameter decides the answer too
    assert ask(gateway, stream=True, user="someone") == "answer 2"  # stream flag and caller id do not
    assert len(upstream.requests) == 4


def test_a_store_holds_one_runs_answers_within_its_cap(gateway, upstream):
    route = register(gateway, upstream)
    gateway.begin_stage_run("att1", "supervise[1]")
    assert ask(gateway) == "answer 1" and route.replays.kept == 1
    gateway.begin_stage_run("att1", "follow-up[1]")  # supervise[1] passed: its answers are not needed again
    assert route.replays.kept == 0
    route.replays.max_bytes = 100  # under one answer's size
    assert ask(gateway) == "answer 2" and route.replays.kept == 0
    gateway.begin_stage_run("att1", "follow-up[1]")
    assert ask(gateway) == "answer 3"  # nothing kept, so the rerun calls the provider as before
    assert not any(r.replayed for r in read_ledger(route.ledger.path))


def test_different_attempts_never_share_answers(gateway, upstream):
    register(gateway, upstream, "att1")
    register(gateway, upstream, "att2")
    for attempt in ("att1", "att2"):
        gateway.begin_stage_run(attempt, "supervise[1]")
    assert ask(gateway, "att1") == "answer 1"
    assert ask(gateway, "att2") == "answer 2"
    gateway.begin_stage_run("att2", "supervise[1]")
    assert ask(gateway, "att2") == "answer 2"
    assert len(upstream.requests) == 2


def test_runs_that_do_not_replay_and_calls_outside_any_run_always_reach_the_provider(gateway, upstream):
    route = register(gateway, upstream)
    assert ask(gateway, role="executor") == "answer 1"  # no run announced
    gateway.begin_stage_run("att1", "executor-turn[1]", replay=False)
    assert ask(gateway, role="executor") == "answer 2"
    gateway.begin_stage_run("att1", "executor-turn[1]", replay=False)
    assert ask(gateway, role="executor") == "answer 3"
    assert route.replays.kept == 0 and not any(r.replayed for r in read_ledger(route.ledger.path))


def test_a_failed_call_is_not_kept(gateway, tmp_path):
    with NumberingUpstream(fail_first=1) as upstream:
        route = register(gateway, upstream)
        gateway.begin_stage_run("att1", "supervise[1]")
        body = {"model": "x", "messages": ASK}
        assert httpx.post(gateway.base_url("att1", "supervisor") + "/chat/completions", json=body).status_code == 400
        gateway.begin_stage_run("att1", "supervise[1]")
        assert ask(gateway) == "answer 2"
    assert [(r.status, r.replayed) for r in read_ledger(route.ledger.path)] == [("invalid_request", False),
                                                                                 ("ok", False)]


def test_the_store_goes_with_the_attempt(gateway, upstream):
    register(gateway, upstream)
    gateway.begin_stage_run("att1", "supervise[1]")
    assert ask(gateway) == "answer 1"
    gateway.close_attempt("att1", drain_s=5)
    assert gateway.begin_stage_run("att1", "supervise[1]") is False  # no route, nothing to tell
    route = register(gateway, upstream)  # the id again (a forced rerun of the cell): a new attempt
    assert route.replays.kept == 0
    gateway.begin_stage_run("att1", "supervise[1]")
    assert ask(gateway) == "answer 2"


def test_a_replay_passes_a_spent_budget_and_costs_nothing(gateway, upstream):
    route = register(gateway, upstream, budget=1e-4)  # the first call spends more than the cap
    gateway.begin_stage_run("att1", "supervise[1]")
    assert ask(gateway) == "answer 1"
    gateway.begin_stage_run("att1", "supervise[1]")
    assert ask(gateway) == "answer 1"  # paid already: the cap does not refuse it
    reply = httpx.post(gateway.base_url("att1", "supervisor") + "/chat/completions",
                       json={"model": "x", "messages": ASK}, timeout=30)
    assert reply.status_code == 402  # the same request once more in this run is a new call
    lines = [(r.status, r.replayed, r.cost_usd) for r in read_ledger(route.ledger.path)]
    assert lines == [("ok", False, route.budget("supervisor").spent_usd), ("ok", True, 0.0), ("budget_exceeded", False, 0.0)]
    assert len(upstream.requests) == 1


def test_a_raising_fail_point_raises_an_io_error_at_its_nth_reach(monkeypatch):
    from clawmark import failpoint

    monkeypatch.setenv(failpoint.ENV, "replay-probe:2:raise")
    failpoint.reach("replay-probe")
    failpoint.reach("another-point")
    with pytest.raises(failpoint.FailpointHit, match="replay-probe") as hit:
        failpoint.reach("replay-probe")
    assert isinstance(hit.value, OSError) and retryable(hit.value)
    failpoint.reach("replay-probe")  # the third reach passes


def test_a_rerun_agent_judge_stage_replays_its_responses_calls(gateway, upstream):
    """The agentic judge's codex calls (Responses API) replay like the prompt judge's chat calls."""
    route = register(gateway, upstream)
    body = {"model": "whatever", "input": [{"type": "message", "role": "user",
                                            "content": [{"type": "input_text", "text": "judge this turn"}]}],
            "stream": True, "store": False}
    texts = []
    for _run in range(2):
        gateway.begin_stage_run("att1", "supervise[1]")
        reply = httpx.post(gateway.base_url("att1", "supervisor") + "/responses", json=body, timeout=30)
        events = [json.loads(line[6:]) for line in reply.text.splitlines() if line.startswith("data: {")]
        texts.append(events[-1]["response"]["output"][0]["content"][0]["text"])
    assert texts == ["answer 1", "answer 1"] and len(upstream.requests) == 1
    assert [r.replayed for r in read_ledger(route.ledger.path)] == [False, True]
