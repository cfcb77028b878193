"""The conformance kit's closed-loop half: every claw of ``KIT_CLAWS`` through real closed-loop
attempts (task container, supervisor, user simulator, rewritten follow-ups).

* Three turns on the bundled task ``en_101_sales_total``: one session across turns (a follow-up's reply
  only answers a request that holds the turns before it), both follow-ups delivered, calls under
  the right roles, no claw file in the results folders. (GenericAgent 1.0.7's own file loop died
  on the second follow-up: the third turn is what catches that kind of bug.)
* The runtime preamble (clawmark/claws/preamble.py) opens every claw's first prompt, read back from
  the request the provider got; the skills it announces are the ones injected, and the reference
  claw reads each announced ``SKILL.md`` at its path in the task container.
* EDICT's court (its three-role double) on the bundled task ``zh_201_invoice_sum`` (its own cassette, the task's own
  supervisor and simulator): every role acts on both turns and the attempt passes after the
  follow-up.
* A claw that goes quiet (no model call back after the start, or none after the last) is stopped
  by its watchdog and typed as its own failure.
* The claw runs with the task's network policy: the container of every attempt above (``full``)
  and of a one-turn attempt per claw on the fixture task ``fx_101_sum`` under ``none`` and
  ``registries-only`` is on the networks
  that policy gives, and the claw still reaches the gateway through them.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import pytest
import yaml

from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig
from clawmark.attempts.closed_loop_prompt import executor_preamble
from clawmark.catalog import load_task
from clawmark.claws import Budgets, get_claw
from clawmark.gateway.ledger import read_ledger
from clawmark.results import Status
from clawmark.results.status import ErrorKind
from clawmark.settings import TASKS_CATALOG
from clawmark.taskenv.container_layout import SKILLS_DIR
from tests.claws.kit import (CASSETTES, CLAW_DIR_NAMES, CLAW_FILE_NAMES, EXPORT_EVENT_JSON, FOLLOW_UP_MARK,
                             KIT_CLAWS, TURN0_MARK, follow_up_request, supervisor_transcript, texts)
from tests.support.closed_loop_fixtures import FIXTURES, bundled_task, decision, sim_reply

pytestmark = pytest.mark.docker
CL_FOLLOW_UP = f"{FOLLOW_UP_MARK}: please write the summary file now."
CL_TASK = "en_101_sales_total"  # of the bundled suite; the scripted replies write nothing, so it fails
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")
TURN_TIMEOUT_S = 900.0


@pytest.fixture
def cassettes(tmp_path, monkeypatch):
    folder = tmp_path / "cassettes"
    folder.mkdir()
    monkeypatch.setenv("CLAWMARK_CASSETTES", os.pathsep.join([str(folder), str(CASSETTES)]))

    def write(name: str, steps: list[dict]) -> str:
        (folder / f"{name}.yaml").write_text(yaml.safe_dump({"steps": steps}, allow_unicode=True))
        return f"scripted/{name}"

    return write


@pytest.fixture
def task_containers():
    """attempt id -> (networks, environment) of every task container seen while the test runs."""
    import docker

    client, seen, done = docker.from_env(), {}, threading.Event()

    def watch() -> None:
        while not done.is_set():
            # ignore_removed: another test's task container may go between the listing and its inspect
            for container in client.containers.list(filters={"label": "clawmark.role=task-env"}, ignore_removed=True):
                attempt = container.labels.get("clawmark.attempt")
                if attempt and attempt not in seen:
                    try:
                        container.reload()
                    except docker.errors.NotFound:
                        continue
                    seen[attempt] = (set(container.attrs["NetworkSettings"]["Networks"]),
                                     container.attrs["Config"]["Env"] or [])
            done.wait(0.3)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    yield seen
    done.set()
    watcher.join(timeout=10)
    client.close()


def _attempt(task, claw, executor, store, gateway, **config):
    from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig, run_closed_loop_attempt

    # The kit checks behaviour, not speed: one OpenClaw start took over 300 s (the tasks' turn
    # limit) on a loaded 2-core machine, so turns get more time here; the protocol is the same.
    config = {"turn_timeout_s": TURN_TIMEOUT_S, "total_timeout_s": 3 * TURN_TIMEOUT_S, **config}
    return run_closed_loop_attempt(task, claw.name, executor, 0, store, "kit-cl", gateway,
                                   config=ClosedLoopAttemptConfig(claw_settings=claw.config, **config))


def _reply(kit_claw, turn: int, content: str) -> dict:
    """The reply of follow-up turn ``turn``: only to a request holding the ``turn`` replies before
    it (by that count alone where the claw's own context message hides the follow-up's text)."""
    trigger = {} if kit_claw.context_after_user else {"match": FOLLOW_UP_MARK, "turn": turn}
    return {**trigger, **kit_claw.final(content)}


def _networks_of(policy: str) -> set[str]:
    """The Docker networks a task container of ``policy`` belongs on, as the runtime names them."""
    from clawmark.runtime import network

    kind = "bridge" if policy == "full" else "gateway"  # taskenv: full is routed, the others internal
    if hasattr(network, "network_for"):  # the routed network is clawmark's own (clawmark-open)
        return {network.network_for(kind)[0]}
    return {"bridge"} if kind == "bridge" else {network.gateway_network()[0]}


def _assert_policy_kept(containers, row, policy: str) -> None:
    assert row.network_policy == policy
    networks, env = containers[row.attempt_id]
    assert networks == _networks_of(policy)
    proxied = {item.split("=", 1)[0] for item in env if item.split("=", 1)[0] in PROXY_VARS}
    assert bool(proxied) == (policy == "registries-only"), env  # no claw setting drops or adds a proxy


def _assert_preamble_sent(kit_claw, task, row, first_request: dict, **config) -> list[str]:
    """The first request holds the runtime preamble before the task; the skills it announces are
    those the attempt injected. Returns the announced SKILL.md paths."""
    claw = kit_claw.adapter()
    preamble = executor_preamble(task, claw, ClosedLoopAttemptConfig(**config)).strip()
    assert preamble.startswith("Runtime context of this task:")
    first_user = "\n".join(texts(first_request["messages"], "user"))
    assert preamble in first_user and first_user.index(preamble) < first_user.index(task.prompt().strip())
    announced = re.findall(rf"^- ({re.escape(SKILLS_DIR)}/\S+/SKILL\.md)$", preamble, flags=re.M)
    injected = json.loads((Path(row.artifacts_dir) / "logs" / "taskenv.json").read_text())["skills"]
    assert announced == [f"{SKILLS_DIR}/{name}/SKILL.md" for name in injected] and announced
    return announced


def _assert_clean_ledger_and_results(row, judged_turns: int) -> None:
    ledger = read_ledger(Path(row.artifacts_dir) / "ledger.jsonl")
    assert {r.attempt_id for r in ledger} == {row.attempt_id} and all(r.status == "ok" for r in ledger)
    roles = [r.role for r in ledger]
    assert {"executor", "supervisor"} <= set(roles) and roles.count("supervisor") == judged_turns
    assert ("user_simulator" in roles) == (judged_turns > 1)
    cycles = Path(row.artifacts_dir) / "cycles"
    leaked = [p for p in cycles.glob("*/results/**/*")
              if p.name in CLAW_FILE_NAMES or CLAW_DIR_NAMES & set(p.relative_to(cycles).parts[2:-1])]
    assert leaked == []


@pytest.mark.timeout(2 * 3 * TURN_TIMEOUT_S)  # three turns, each up to TURN_TIMEOUT_S: past the suite's 900 s
@pytest.mark.parametrize("kit_claw", [c for c in KIT_CLAWS if c.closed_loop], ids=str)
def test_three_closed_loop_turns_in_one_session(kit_claw, provider, gateway, store, cassettes, task_containers):
    executor = cassettes(f"kit-cl-{kit_claw.name}", [
        kit_claw.final(f"{TURN0_MARK}: I read the task; here is my first answer."),
        _reply(kit_claw, 1, "Second turn, same session: done."),
        _reply(kit_claw, 2, "Third turn, same session: done."),
    ])
    supervisor = cassettes("kit-cl-sup", [
        {"match": "EXECUTOR TURN 1 OF 3", "content": decision("continue", "incomplete", 0.1, True)},
        {"match": "EXECUTOR TURN 2 OF 3", "content": decision("continue", "incomplete", 0.2, True)},
        {"match": "EXECUTOR TURN 3 OF 3", "content": decision("fail", "complete_but_failed", 0.2)},
    ])
    simulator = cassettes("kit-cl-sim", [{"content": sim_reply(CL_FOLLOW_UP)}])
    task = bundled_task(CL_TASK)
    row = _attempt(task, kit_claw, executor, store, gateway, supervisor_model=supervisor, simulator_model=simulator)
    assert (row.status, row.turns, row.followups_used) == (Status.FAIL, 3, 2), row.error_message
    cycles = Path(row.artifacts_dir) / "cycles"
    assert [(cycles / str(n) / "prompt.txt").read_text() for n in (1, 2)] == [CL_FOLLOW_UP, CL_FOLLOW_UP]
    requests = provider.requests(executor.split("/", 1)[1])
    _assert_preamble_sent(kit_claw, task, row, requests[0])
    assert not any("Runtime context" in text for text in texts(requests[-1]["messages"], "user")[1:])  # once only
    _, follow_up = follow_up_request(requests)
    assert any(TURN0_MARK in text for text in texts(follow_up["messages"], "assistant"))
    last = requests[-1]["messages"]  # the third turn's request holds both follow-ups and turn 2's reply
    assert sum(FOLLOW_UP_MARK in text for text in texts(last, "user")) == 2
    assert any("Second turn" in text for text in texts(last, "assistant"))
    _assert_clean_ledger_and_results(row, judged_turns=3)
    _assert_policy_kept(task_containers, row, "full")


@pytest.mark.timeout(2 * 8 * TURN_TIMEOUT_S)  # two turns of four OpenClaw runs: past the suite's 900 s
def test_edict_court_passes_a_bundled_task_after_a_follow_up(provider, gateway, store, task_containers):
    """tasks_catalog/cassettes/edict-cl-zh_201_invoice_sum.yaml: turn 1 counts the voided invoice
    (the supervisor continues), turn 2 drops it after the simulator's follow-up (pass)."""
    edict = next(c for c in KIT_CLAWS if c.name == "edict-3role")
    task = bundled_task("zh_201_invoice_sum")
    # A turn is four OpenClaw runs (15-20 s of start-up each when idle, minutes on a loaded machine).
    row = _attempt(task, edict, "scripted/edict-cl-{task_id}", store, gateway, turn_timeout_s=4 * TURN_TIMEOUT_S,
                   total_timeout_s=8 * TURN_TIMEOUT_S)
    assert (row.status, row.turns, row.followups_used, row.score) == (Status.PASS, 2, 1, 1.0), row.error_message
    cycles = Path(row.artifacts_dir) / "cycles"
    simulator = yaml.safe_load((TASKS_CATALOG / "cassettes" / "sim-zh_201_invoice_sum.yaml").read_text())
    feedback = json.loads(simulator["steps"][0]["content"])["feedback"]
    assert (cycles / "1" / "prompt.txt").read_text() == feedback
    assert (cycles / "0" / "results" / "invoice_total.txt").read_text() == "4996.00\n"  # the void counted
    assert (cycles / "1" / "results" / "invoice_total.txt").read_text() == "1816.00\n"
    requests = provider.requests("edict-cl-zh_201_invoice_sum")
    preamble = _assert_preamble_sent(edict, task, row, requests[0])  # the front desk's first request
    assert "EDICT routing note:" in "\n".join(texts(requests[0]["messages"], "user")) and preamble
    follow_up = next(r for r in requests if any(feedback in t for t in texts(r["messages"], "user")))
    assert any(TURN0_MARK in text for text in texts(follow_up["messages"], "assistant"))  # the front desk's turn 1
    for turn in (0, 1):  # the whole court on both turns: front desk, planner, executor, front desk's report
        trace = json.loads((Path(row.artifacts_dir) / "transcript" / f"edict-dispatch-turn{turn}.json").read_text())
        assert trace["status"] == "Done"
        assert [step["agent"] for step in trace["steps"]] == ["taizi", "zhongshu", "shangshu", "taizi"]
    # What the supervisor read of turn 0: every role's messages and tool calls in turn order, named
    # by role, and none of the OpenClaw export's event JSON (issue 19: it was the raw bundles).
    text = supervisor_transcript(provider.requests("sup-zh_201_invoice_sum")[0])
    speakers = re.findall(r"^\[(\w+): (user|assistant|tool exec)\]", text, re.M)
    agents = [agent for agent, role in speakers if role == "assistant"]
    assert [a for i, a in enumerate(agents) if i == 0 or agents[i - 1] != a] == ["taizi", "zhongshu", "shangshu", "taizi"]
    assert "kanban_update.py create JJC-1" in text and re.search(r"^\[taizi: tool exec\] .*JJC-1: created", text, re.M)
    assert "[taizi: assistant] KIT-TURN-0: the front desk handed your invoice request" in text
    assert re.search(r"^  -> tool call exec\(", text, re.M) and not any(m in text for m in EXPORT_EVENT_JSON)
    _assert_clean_ledger_and_results(row, judged_turns=2)
    _assert_policy_kept(task_containers, row, "full")


# The pinned images' entries run the patch half only: the network code is the adapter's, the same in every profile.
@pytest.mark.parametrize("kit_claw", [c for c in KIT_CLAWS if c.profile == "clawmark"], ids=str)
@pytest.mark.parametrize("policy", ["none", "registries-only"])
def test_the_claw_runs_with_the_task_network_policy(kit_claw, policy, provider, gateway, store, cassettes,
                                                     task_containers):
    executor = cassettes(f"kit-net-{kit_claw.name}-{policy}",  # its own name: only this attempt's requests
                         [kit_claw.final(f"{TURN0_MARK}: answered under {policy}.")])
    supervisor = cassettes("kit-net-sup", [
        {"match": "EXECUTOR TURN 1 OF", "content": decision("pass", "complete_and_passed", 1.0)}])
    task = load_task(FIXTURES / "closed_loop" / "fx_101_sum")
    row = _attempt(task, kit_claw, executor, store, gateway, supervisor_model=supervisor, network_policy=policy)
    assert (row.status, row.turns) == (Status.PASS, 1), row.error_message  # it reached the gateway
    assert provider.requests(executor.split("/", 1)[1])
    _assert_clean_ledger_and_results(row, judged_turns=1)
    _assert_policy_kept(task_containers, row, policy)


def test_the_announced_skills_are_at_their_paths(provider, gateway, store, cassettes):
    """The reference claw reads every SKILL.md the preamble announces (the task's skill and a
    base skill) inside the task container, as the executor user, and gets each file's text."""
    reference = next(c for c in KIT_CLAWS if c.name == "reference")
    task = bundled_task(CL_TASK)
    base_skills = [TASKS_CATALOG / "base_skills" / "web-search"]
    preamble = executor_preamble(task, get_claw("reference"), ClosedLoopAttemptConfig(base_skills=base_skills))
    announced = re.findall(rf"^- ({re.escape(SKILLS_DIR)}/\S+/SKILL\.md)$", preamble, flags=re.M)
    assert announced == [f"{SKILLS_DIR}/csv-summary/SKILL.md", f"{SKILLS_DIR}/web-search/SKILL.md"]
    executor = cassettes("kit-skills-reference", [
        {"content": "Reading the skills I was told of.",
         "tool_calls": [{"name": "bash", "arguments": {"command": "cat " + " ".join(announced)}}]},
        {"content": f"{TURN0_MARK}: read them."}])
    supervisor = cassettes("kit-skills-sup", [
        {"match": "EXECUTOR TURN 1 OF", "content": decision("fail", "complete_but_failed", 0.0)}])
    row = _attempt(task, reference, executor, store, gateway, supervisor_model=supervisor, base_skills=base_skills)
    assert (row.status, row.turns) == (Status.FAIL, 1), row.error_message
    requests = provider.requests("kit-skills-reference")
    _assert_preamble_sent(reference, task, row, requests[0], base_skills=base_skills)
    observed = "\n".join(texts(requests[1]["messages"], "tool"))
    for folder in (task.skill_dirs["csv-summary"], base_skills[0]):
        assert (folder / "SKILL.md").read_text().strip() in observed  # the file, whole, where it was announced


@pytest.mark.parametrize("kind", ["silence", "stall"])
def test_a_claw_that_goes_quiet_is_stopped_by_its_watchdog(kind, provider, gateway, store, cassettes):
    """Silence: the first model call has not come back 3 s into the turn. Stall: one call came
    back, then a tool runs on without another. Either way the watchdog stops the claw long
    before the turn's deadline, and the row types it as the claw's failure, naming the watchdog."""
    reference = next(c for c in KIT_CLAWS if c.name == "reference")
    slow_tool = {"name": "bash", "arguments": {"command": "sleep 120"}}
    first = ({"content": "Thinking it over.", "latency_s": 10} if kind == "silence" else
             {"content": "Waiting on a slow tool.", "tool_calls": [slow_tool]})
    executor = cassettes(f"kit-watchdog-{kind}", [first, {"content": "Done."}])
    supervisor = cassettes("kit-watchdog-sup", [
        {"match": "EXECUTOR TURN 1 OF", "content": decision("fail", "complete_but_failed", 0.0)}])
    budgets = Budgets(silence_s=3.0, stall_s=0.0) if kind == "silence" else Budgets(silence_s=300.0, stall_s=3.0)
    task = load_task(FIXTURES / "closed_loop" / "fx_101_sum")
    row = _attempt(task, reference, executor, store, gateway, supervisor_model=supervisor, budgets=budgets)
    assert (row.status, row.error_kind, row.failure_reason) == (
        Status.EXECUTOR_INCOMPLETE, ErrorKind.MODEL, f"watchdog_{kind}"), row.error_message
    turn = json.loads((Path(row.artifacts_dir) / "cycles" / "0" / "turn.json").read_text())
    assert (turn["exit_status"], turn["timeout"]) == (f"watchdog_{kind}", True)  # not the host deadline
    assert len(provider.requests(f"kit-watchdog-{kind}")) == 1  # stopped before a second call


def test_a_claw_without_its_own_step_limit_is_stopped_past_the_protocols(provider, gateway, store, cassettes):
    """OpenClaw 2026.9.6 has no per-run step cap (its tools.loopDetection only spots repeats):
    the host's watch stops its turn once it made more calls than `steps`, typed step_limit."""
    openclaw = next(c for c in KIT_CLAWS if c.name == "openclaw")
    steps = [{"content": f"Step {n}.", "tool_calls": [{"name": "exec", "arguments": {"command": f"echo step-{n}"}}]}
             for n in range(12)]
    executor = cassettes("kit-steps-openclaw", [*steps, {"content": "KIT-NEVER-REACHED"}])
    supervisor = cassettes("kit-steps-sup", [
        {"match": "EXECUTOR TURN 1 OF", "content": decision("fail", "complete_but_failed", 0.0)}])
    task = load_task(FIXTURES / "closed_loop" / "fx_101_sum")
    row = _attempt(task, openclaw, executor, store, gateway, supervisor_model=supervisor, budgets=Budgets(steps=2))
    assert (row.status, row.failure_reason) == (Status.EXECUTOR_INCOMPLETE, "step_limit"), row.error_message
    turn = json.loads((Path(row.artifacts_dir) / "cycles" / "0" / "turn.json").read_text())
    assert (turn["exit_status"], turn["finish_reason"]) == ("step_limit", "limit")
    assert 3 <= len(provider.requests("kit-steps-openclaw")) < len(steps)  # stopped at the third call, not at the end
