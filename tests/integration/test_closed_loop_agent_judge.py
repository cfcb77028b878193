"""The agentic judge (closed_loop.judge: agent, issue 19 item 1) on real closed-loop attempts: the
reference claw in a real task container, the real gateway, the real Codex CLI 0.120.0 in the
judge containers (images/judge-codex), and scripted models (the providers' doubles) answering it
over the Responses API with tool calls.

The task's deliverable is an .xlsx whose telling cell is computed at run time (never literal in
the transcript). Under the agent judge the supervisor opens the workbook with a tool call and can
only pass from its content (a cassette with no step for any other tool output fails the call);
turn 1 it asks for more, the simulator lists its workspace and probes the network from its own
container, and turn 2 the supervisor reads its own history and passes. Under the prompt judge the
same deliverable reaches the supervisor only as a listed binary file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from clawmark.catalog import load_task
from clawmark.gateway.ledger import read_ledger
from clawmark.results import Status
from tests.support.closed_loop_fixtures import (  # noqa: F401
    attempt,
    cassettes,
    copied_task,
    cycle_file,
    cycle_json,
    decision,
    gateway,
    sim_reply,
    store,
)

pytestmark = pytest.mark.docker
MARK = "XLSX-MARK-91C2"  # written by the executor as '-'.join(...).upper(): never literal before the workbook
WRITE_XLSX = """python3 - <<'PY'
import openpyxl
book = openpyxl.Workbook()
sheet = book.active
sheet["A1"], sheet["B1"] = "total", 790.0
sheet["A2"], sheet["B2"] = "check", "-".join(["xlsx", "mark", "91c2"]).upper()
book.save("/tmp_workspace/results/report.xlsx")
PY
ls /tmp_workspace/results"""
READ_CELL = ("python3 -c \"import json, openpyxl; c = openpyxl.load_workbook('visible/result/report.xlsx').active['B2']"
             ".value; h = [json.loads(x)['turn'] for x in open('role_history.jsonl')]; print('{tag}', c, 'HIST', h)\"")
SIM_PROBE = ("find . -type f | sort; cat supervisor_feedback.json; echo; grep -rl SUP-RATIONALE . ; "
             "echo \"grep exit $?\"; curl -s -m 5 http://deb.debian.org/ >/dev/null; echo \"outside exit $?\"; "
             "curl -s -m 5 http://1.1.1.1/ >/dev/null; echo \"address exit $?\"")
FEEDBACK = "FEEDBACK-2b7e please double-check the workbook"


def _exec(cmd: str) -> dict:
    return {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": cmd}}]}


@pytest.fixture
def xlsx_task(tmp_path):
    folder = copied_task(tmp_path)
    spec = yaml.safe_load((folder / "task.yaml").read_text())
    spec["task"] = "Sum the amount column of /tmp_workspace/clawbench/sources/sales.csv and save the workbook " \
                   "/tmp_workspace/results/report.xlsx with the total in B1."
    (folder / "task.yaml").write_text(yaml.safe_dump(spec, allow_unicode=True))
    return load_task(folder)


@pytest.fixture
def executor(cassettes):  # noqa: F811
    return cassettes("aj-exec", [{"tool_calls": [{"name": "bash", "arguments": {"command": WRITE_XLSX}}]},
                                 {"content": "Saved report.xlsx."},
                                 {"match": "FEEDBACK-2b7e", "content": "Checked the workbook again."}])


def test_the_agent_supervisor_opens_the_workbook_the_prompt_supervisor_only_lists(
        xlsx_task, executor, store, gateway, cassettes):  # noqa: F811
    supervisor = cassettes("aj-sup", [
        {"match": "EXECUTOR TURN 1 OF", "turn": 0, **_exec(READ_CELL.format(tag="T1"))},
        {"match": "EXECUTOR TURN 2 OF", "turn": 0, **_exec(READ_CELL.format(tag="T2"))},
        {"match": f"T1 {MARK} HIST []", "content": decision("continue", "incomplete", 0.5, True, "SUP-RATIONALE-1")},
        {"match": f"T2 {MARK} HIST [1]", "content": decision("pass", "complete_and_passed", 1.0)},
    ])
    simulator = cassettes("aj-sim", [_exec(SIM_PROBE), {"content": sim_reply(FEEDBACK)}])
    row = attempt(xlsx_task, executor, store, gateway, judge="agent", supervisor_model=supervisor,
                  simulator_model=simulator, sweep_id="agent-judge")
    assert row.status is Status.PASS and row.turns == 2, row.error_message
    assert row.judge_mode == "agent"
    assert cycle_json(row, 0, "decision.json")["supervisor_decision"]["rationale"] == "SUP-RATIONALE-1"

    seen = _command_outputs(cycle_file(row, 0, "agent/user_simulator/run-1"))
    listed = set(re.findall(r"^\./(\S+)$", seen, re.M))
    assert listed == {"README.md", "workspace_manifest.json", "public_task.md", "turn_state.json",
                      "role_history.jsonl", "supervisor_feedback.json", "visible/executor_prompt.md",
                      "visible/transcript.jsonl", "visible/result/report.xlsx"}
    four = json.loads(re.search(r"^\{.*?\}$", seen, re.M | re.S).group(0))
    assert sorted(four) == ["attempt_state", "recoverable", "score", "verdict"] and four["verdict"] == "continue"
    assert "grep exit 1" in seen  # the withheld rationale is nowhere in the simulator's workspace
    # the judge container reaches only the gateway: no name resolves, no outside address answers
    assert re.search(r"^outside exit [1-9]", seen, re.M) and re.search(r"^address exit [1-9]", seen, re.M)

    ledger = read_ledger(Path(row.artifacts_dir) / "ledger.jsonl")
    calls = {role: [r for r in ledger if r.role == role] for role in ("supervisor", "user_simulator")}
    assert len(calls["supervisor"]) == 4 and len(calls["user_simulator"]) == 2  # two codex runs, one
    assert all(r.status == "ok" and not r.refused and r.cost_usd > 0 for rs in calls.values() for r in rs)
    for role, records in calls.items():
        assert row.usage[role].calls == len(records)
        assert row.usage[role].cost_usd == pytest.approx(sum(r.cost_usd for r in records))
        assert row.usage[role].cap_usd == 2.0  # judge_budget_usd: the role's own cap

    listed_only = cassettes("aj-sup-prompt", [
        {"match": MARK, "content": decision("pass", "complete_and_passed", 1.0)},
        {"match": "report.xlsx (", "content": decision("fail", "complete_but_failed", 0.0, False, "ONLY-LISTED")},
    ])
    prompt = attempt(xlsx_task, executor, store, gateway, supervisor_model=listed_only, sweep_id="prompt-judge")
    assert (prompt.status, prompt.judge_mode) == (Status.FAIL, "prompt"), prompt.error_message
    assert cycle_json(prompt, 0, "decision.json")["supervisor_decision"]["rationale"] == "ONLY-LISTED"
    assert not cycle_file(prompt, 0, "agent").exists()


def _command_outputs(run: Path) -> str:
    """What the role's tool calls returned to its model, from codex's own rollout of the run."""
    lines = [json.loads(line) for rollout in (run / "sessions").rglob("rollout-*.jsonl")
             for line in rollout.read_text().splitlines()]
    return "\n".join(str(x["payload"]["output"]) for x in lines
                     if x.get("type") == "response_item" and x["payload"].get("type") == "function_call_output")
