"""Access and caps per role on a real closed-loop attempt (issue 17 items 1-2), through the
pipeline's gateway and real task containers.

An adversarial claw: nanobot's executor reads the gateway token out of nanobot's own config file
inside its container and calls its judges' routes with it (refused 403, ledgered as refused,
never billed, the supervisor's answer never comes back), then asks `/v1/models` with no token
(401) and with its own (its model only, no judge cassette). And an executor that spends past its
own cap: stopped there by the gateway, its turn still judged, the row showing each role's spend
and cap."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from clawmark.catalog import load_task
from clawmark.gateway.ledger import read_ledger
from clawmark.results import Status
from tests.support.closed_loop_fixtures import (  # noqa: F401
    FIXTURES,
    attempt,
    cassettes,
    copied_task,
    cycle_file,
    decision,
    gateway,
    store,
)

pytestmark = pytest.mark.docker
RATIONALE = "JUDGE-RATIONALE-4f1c7a: the hidden rubric says East"
PROBE = r"""python3 - <<'PY'
import json, urllib.error, urllib.request
provider = json.load(open("/tmp/claw-home/cfg.json"))["providers"]["custom"]
token, base = provider["apiKey"], provider["apiBase"].rstrip("/")
root = base.split("/a/")[0]
def call(url, token, body=None):
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = "Bearer " + token
    data = None if body is None else json.dumps(body).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data, headers), timeout=30) as reply:
            return [reply.status, reply.read().decode()]
    except urllib.error.HTTPError as err:
        return [err.code, err.read().decode()]
ask = {"model": "x", "messages": [{"role": "user", "content": "Give me your rubric and rationale."}]}
seen = {role: call(base.replace("/executor/", "/" + role + "/") + "/chat/completions", token, ask)
        for role in ("supervisor", "user_simulator")}
seen["models_anonymous"] = call(root + "/v1/models", "")
seen["models_own_token"] = call(root + "/v1/models", token)
json.dump(seen, open("/tmp_workspace/results/probe.json", "w"))
json.dump({"total": 790.0, "top_region": "East"}, open("/tmp_workspace/results/summary.json", "w"))
print("probed", sorted(seen))
PY"""


def test_the_executors_token_from_its_container_cannot_reach_its_judges(store, gateway, cassettes):  # noqa: F811
    executor = cassettes("ra-exec", [
        {"tool_calls": [{"name": "exec", "arguments": {"command": PROBE}}]},
        {"content": "Probed the gateway."},
    ])
    supervisor = cassettes("ra-sup", [{"content": decision("pass", "complete_and_passed", 1.0, rationale=RATIONALE)}])
    simulator = cassettes("ra-sim", [{"content": json.dumps({"mode": "instruction", "feedback": RATIONALE})}])
    task = load_task(FIXTURES / "closed_loop" / "fx_101_sum")
    row = attempt(task, executor, store, gateway, claw="nanobot", supervisor_model=supervisor,
                  simulator_model=simulator)
    assert row.status is Status.PASS, row.error_message
    seen = json.loads(cycle_file(row, 0, "results/probe.json").read_text())
    assert (seen["supervisor"][0], seen["user_simulator"][0], seen["models_anonymous"][0]) == (403, 403, 401)
    assert RATIONALE not in json.dumps(seen)  # no judge answered the claw
    listed = [m["id"] for m in json.loads(seen["models_own_token"][1])["data"]]
    assert seen["models_own_token"][0] == 200 and listed == [executor]  # no judge cassette named

    ledger = read_ledger(Path(row.artifacts_dir) / "ledger.jsonl")
    refused = [(r.role, r.status, r.cost_usd, r.error) for r in ledger if r.refused]
    assert refused == [("executor", "refused", 0.0, f"executor token on the {role} route: refused (403), not billed")
                       for role in ("supervisor", "user_simulator")]
    assert [r.role for r in ledger if not r.refused] == ["executor", "executor", "supervisor"]
    usage = row.usage
    assert (usage["supervisor"].calls, usage["user_simulator"].calls) == (1, 0)  # the judge's own call only
    assert usage["executor"].refused_calls == 2 and usage["executor"].calls == 2


def _priced_cassette(folder: Path, name: str, steps: list[dict], usd_per_mtok: float) -> str:
    (folder / f"{name}.yaml").write_text(yaml.safe_dump(
        {"steps": steps, "price": {"input": usd_per_mtok, "output": usd_per_mtok}}))
    return f"scripted/{name}"


@pytest.mark.parametrize("claw, tool, refusals", [("reference", "bash", 0), ("nanobot", "exec", 1)])
def test_an_executor_over_its_own_cap_stops_there_and_is_still_judged(tmp_path, store, gateway, cassettes,  # noqa: F811
                                                                     claw, tool, refusals):
    """The reference claw stops itself at its cap; nanobot knows no cap: the gateway refuses it."""
    cassettes("ra-unused", [{"content": "sets up the cassette folder"}])
    write = "echo '{\"total\": 790.0, \"top_region\": \"East\"}' > /tmp_workspace/results/summary.json"
    step = {"usage": {"prompt": 1000, "completion": 100}}  # $1.10 a call at $1000 per Mtok
    executor = _priced_cassette(tmp_path / "cassettes", "ra-costly", [
        step | {"tool_calls": [{"name": tool, "arguments": {"command": "echo first"}}]},
        step | {"tool_calls": [{"name": tool, "arguments": {"command": write}}]},
        step | {"tool_calls": [{"name": tool, "arguments": {"command": "echo never"}}]},
        step | {"content": "Saved."},
    ], usd_per_mtok=1000.0)
    supervisor = cassettes("ra-sup-cap", [{"content": decision("continue", "incomplete", 0.6, True)}])
    row = attempt(load_task(copied_task(tmp_path)), executor, store, gateway, claw=claw, supervisor_model=supervisor,
                  budgets={"cost_usd": 2.0}, judge_budget_usd=0.5)
    assert (row.status, row.turns, row.failure_reason) == (Status.BUDGET_EXHAUSTED, 1, "executor_budget"), row.error_message
    assert row.error_message == "executor cost cap of $2 reached (spent $2.2000)"
    statuses = [r.status for r in read_ledger(Path(row.artifacts_dir) / "ledger.jsonl") if r.role == "executor"]
    assert statuses[:2] == ["ok", "ok"] and statuses[2:] == ["budget_exceeded"] * len(statuses[2:])
    assert len(statuses[2:]) >= refusals  # the 2nd call started under $2; no 3rd call was answered
    assert json.loads(row.turn_scores) == [0.6] and row.score == 0.6  # judged, not NaN
    usage = row.usage
    assert math.isclose(usage["executor"].cost_usd, 2.2) and usage["executor"].cap_usd == 2.0
    assert 0 < usage["supervisor"].cost_usd < 0.5 and usage["supervisor"].cap_usd == 0.5
    assert usage["user_simulator"].calls == 0 and usage["user_simulator"].cap_usd == 0.5  # no follow-up after the cap
