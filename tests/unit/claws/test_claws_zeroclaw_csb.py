"""ZeroClaw as Claw-SWE-Bench ran it (profile ``csb-paper``): its 300 iterations and reasoning in the
config.toml it gets, and its tool filter (7 of ZeroClaw's tools, upstream's proxy) applied by the
real gateway over HTTP to the executor's requests only, before the provider sees them."""

from __future__ import annotations

import tomllib

import httpx

from clawmark.attempts.gateway_link import register
from clawmark.claws import Budgets, ClawContext, get_claw
from clawmark.claws.profiles import profiled_claw
from tests.unit.claws.test_claws_profiles import CSB
from tests.unit.gateway.test_gateway_roles import gateway, upstream  # noqa: F401 - a real gateway before a fake provider

MODEL, JUDGE = "openai/gpt-4o-mini", "openai/gpt-4.1-mini"
UPSTREAM_FILTER = ["shell", "file_read", "file_write", "file_edit", "glob_search", "content_search", "git_operations"]


def _tool(name: str) -> dict:
    return {"type": "function", "function": {"name": name, "description": name, "parameters": {"type": "object"}}}


OFFERED = [_tool(name) for name in ("shell", "browser_open", "file_read", "web_fetch", "memory_store", "git_operations")]


def _context(tmp_path, budgets: Budgets) -> ClawContext:
    return ClawContext(attempt_id="z1", model=MODEL, gateway_url="http://gw/a/z1/executor/v1", host_dir=tmp_path,
                       claw_home="/tmp/claw-home", budgets=budgets)


def test_csb_paper_gives_zeroclaw_its_iterations_reasoning_and_tool_filter(tmp_path):
    claw, budgets = profiled_claw("zeroclaw", {}, Budgets(steps=42), CSB)
    assert (budgets.steps, budgets.seconds) == (300, 3600)
    assert claw.gateway_tool_filter() == UPSTREAM_FILTER
    assert claw.render_prompt(problem_statement="X", base_commit="c", workspace="/testbed").startswith(
        "PROFILE-FIXTURE-PROMPT")
    config = tomllib.loads(claw.config_toml(_context(tmp_path, budgets)))
    profile = config["agents"]["clawmark"]["runtime_profile"]
    assert config["runtime_profiles"][profile]["max_tool_iterations"] == 300
    assert config["runtime"] == {"reasoning_enabled": True, "reasoning_effort": "xhigh"}
    fixed = claw.settings()["profile_fixed"]["settings"]
    assert fixed == {"tool_filter": UPSTREAM_FILTER, "reasoning_effort": "xhigh"}

    plain = get_claw("zeroclaw")  # clawmark's own: no filter, ZeroClaw's own reasoning, settings as before
    assert plain.gateway_tool_filter() is None
    assert "runtime" not in tomllib.loads(plain.config_toml(_context(tmp_path, Budgets())))
    assert not {"tool_filter", "reasoning_effort"} & set(plain.settings())


def _post(gw, attempt, role, token, body):
    return httpx.post(f"{gw.base_url(attempt, role)}/chat/completions", headers={"Authorization": f"Bearer {token}"},
                      json={"model": "any", "messages": [{"role": "user", "content": "fix it"}], **body}, timeout=30)


def test_the_gateway_shows_the_model_only_the_tools_the_claws_filter_keeps(gateway, upstream, tmp_path):
    claw, _ = profiled_claw("zeroclaw", {}, Budgets(), CSB)
    tokens = register(gateway, "csb-z", {"executor": MODEL, "supervisor": JUDGE},
                      {"executor": 1.0, "supervisor": 1.0, "user_simulator": 1.0}, tmp_path / "ledger.jsonl",
                      params={"api_base": upstream.base_url}, claw=claw)
    sent = len(upstream.requests)
    streamed = _post(gateway, "csb-z", "executor", tokens["executor"],
                     {"tools": OFFERED, "tool_choice": "auto", "stream": True})
    plain = _post(gateway, "csb-z", "executor", tokens["executor"], {"tools": OFFERED})
    nothing_left = _post(gateway, "csb-z", "executor", tokens["executor"],
                         {"tools": [_tool("browser_open"), _tool("web_fetch")], "tool_choice": "required"})
    judge = _post(gateway, "csb-z", "supervisor", tokens["supervisor"], {"tools": OFFERED})
    assert [r.status_code for r in (streamed, plain, nothing_left, judge)] == [200, 200, 200, 200]
    seen = upstream.requests[sent:]
    names = [[t["function"]["name"] for t in request.get("tools") or []] for request in seen]
    assert names[:2] == [["shell", "file_read", "git_operations"]] * 2  # in the order the claw sent them
    assert seen[0]["tool_choice"] == "auto"
    assert "tools" not in seen[2] and "tool_choice" not in seen[2]  # nothing to choose from: no choice asked
    assert names[3] == [t["function"]["name"] for t in OFFERED]  # the judge is not the claw: nothing dropped

    unfiltered = register(gateway, "plain-z", {"executor": MODEL}, {"executor": 1.0}, tmp_path / "plain.jsonl",
                          params={"api_base": upstream.base_url}, claw=get_claw("zeroclaw"))
    assert _post(gateway, "plain-z", "executor", unfiltered["executor"], {"tools": OFFERED}).status_code == 200
    assert len(upstream.requests[-1]["tools"]) == len(OFFERED)
