"""Re-judging from saved artifacts alone, through a real gateway and no container: a judge that
keeps asking to continue ends on the last saved turn (no follow-up is invented), one that passes
turn 1 never sees turn 2, an attempt with no judged turn is skipped with its reason, a changed
task package is refused by name, and a remote store's artifacts are read through its filesystem."""

from __future__ import annotations

import json
import math

import pytest
import yaml

from clawmark.attempts.rejudge import RejudgeConfig, rejudge_sweep, rejudges_of, source_of
from clawmark.attempts.rejudge_cell import RejudgeError
from clawmark.catalog import load_task
from clawmark.claws import TurnResult
from clawmark.gateway.server import GatewayConfig, GatewayServer
from clawmark.results import Status
from clawmark.results.location import open_store
from clawmark.results.synthetic import example_row
from clawmark.results.usage import RoleUsage
from clawmark.settings import PROJECT_ROOT

FIXTURE = PROJECT_ROOT / "tests" / "fixtures" / "closed_loop" / "fx_101_sum"


def _decision(verdict: str, score: float) -> str:
    return json.dumps({"verdict": verdict, "attempt_state": "complete_and_passed" if verdict == "pass" else "incomplete",
                       "recoverable": verdict != "pass", "score": score, "confidence": "high", "rationale": "r",
                       "missing_artifacts": [], "guidance_tags": []})


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    with GatewayServer(GatewayConfig(ledger_dir=tmp_path_factory.mktemp("ledgers"))) as server:
        yield server


@pytest.fixture
def judges(tmp_path, monkeypatch):
    folder = tmp_path / "cassettes"
    folder.mkdir()
    monkeypatch.setenv("CLAWMARK_CASSETTES", str(folder))
    for name, turns in {"cont": [("continue", 0.5), ("continue", 0.6)], "early": [("pass", 0.95), ("fail", 0.1)]}.items():
        steps = [{"match": f"EXECUTOR TURN {i} OF 3", "content": _decision(*answer)} for i, answer in enumerate(turns, 1)]
        (folder / f"{name}.yaml").write_text(yaml.safe_dump({"steps": steps}))
    # answers only when the judged attempt's refused web request reached its prompt
    steps = [{"match": "POST https://api.example.test/orders (rule no-orders)", "content": _decision("fail", 0.1)}]
    (folder / "web.yaml").write_text(yaml.safe_dump({"steps": steps}))


def _saved_attempt(store, task, *, seed: int, judged: int, saved: int = 2):
    """A finished source attempt of the fixture task: `saved` turns, the first `judged` of them judged
    (a turn the judge never reached ended the attempt with a provider's rate limit)."""
    error = judged < saved
    row = example_row(sweep_id="src", task_id=task.task_id, task_hash=task.content_hash(), seed=seed,
                      status="rate_limit" if error else "fail", score=math.nan if error else 0.4,
                      turns=saved, followups_used=saved - 1, error_message="429 from the provider" if error else None,
                      usage={"executor": RoleUsage(input_tokens=900, output_tokens=80, calls=4, cost_usd=0.02)})
    layout = store.layout("src", row.cell_key).ensure()
    layout.write_config({"task_file": str(task.task_file), "protocol": {}})
    for turn in range(saved):
        judged_turn = turn < judged
        folder = layout.cycle(turn)
        (folder / "turn.json").write_text(TurnResult(success=True, finish_reason="stop").model_dump_json())
        (folder / "transcript").mkdir()
        (folder / "transcript" / "session.json").write_text(json.dumps([{"role": "assistant", "content": f"turn {turn}"}]))
        (folder / "results").mkdir()
        (folder / "results" / "summary.json").write_text('{"total": 790.0}')
        if judged_turn:
            (folder / "checks.json").write_text("[]")
            (folder / "feedback.txt").write_text("Please add the region." if turn == 0 else "")
    store.write(row)
    return row


def test_rejudge_ends_on_the_last_saved_turn_and_skips_unjudged_attempts(tmp_path, gateway, judges):
    store = open_store(f"file://{tmp_path / 'store'}", staging=tmp_path / "staging")  # read through the filesystem
    task = load_task(FIXTURE)
    source = _saved_attempt(store, task, seed=0, judged=2)
    _saved_attempt(store, task, seed=1, judged=0, saved=1)
    done = rejudge_sweep(store, RejudgeConfig(source_sweep="src", supervisor_model="scripted/cont"), gateway)
    judged, skipped = done
    assert skipped.row is None and "ended rate_limit before judging" in skipped.skipped
    row = judged.row
    assert (row.sweep_id, row.status, row.turns, json.loads(row.turn_scores)) == (
        "src--rejudge-scripted-cont", Status.BUDGET_EXHAUSTED, 2, [0.5, 0.6])  # continue, and no turn 3 to send
    assert (row.rejudge_of, row.supervisor_model, row.usage["supervisor"].calls) == (source.attempt_id, "scripted/cont", 2)
    assert source_of(store, row.sweep_id) == "src" and rejudges_of(store, "src") == [row.sweep_id]
    assert len(store.read(row.sweep_id)) == 1
    [again] = rejudge_sweep(store, RejudgeConfig(source_sweep=row.sweep_id, supervisor_model="scripted/cont",
                                                 sweep_id="twice"), gateway)  # a re-judge judged again
    assert (again.row.status, again.row.turns, again.row.rejudge_of) == (Status.BUDGET_EXHAUSTED, 2, source.attempt_id)


def test_a_judge_that_passes_turn_one_never_sees_turn_two(tmp_path, gateway, judges):
    store = open_store(tmp_path / "store")
    source = _saved_attempt(store, load_task(FIXTURE), seed=0, judged=2)
    [cell] = rejudge_sweep(store, RejudgeConfig(source_sweep="src", supervisor_model="scripted/early", sweep_id="e"),
                           gateway)
    assert (cell.row.status, cell.row.turns, cell.row.passed, cell.row.score) == (Status.PASS, 1, True, 0.95)
    assert not (store.layout("e", cell.row.cell_key).dir / "cycles" / "1").exists()
    carried, judged = cell.row.usage["executor"].model_dump(), source.usage["executor"].model_dump()
    assert carried.keys() == judged.keys() and all(  # the judged run's spend, carried (an absent cap is NaN)
        carried[k] == judged[k] or (math.isnan(carried[k]) and math.isnan(judged[k])) for k in carried)


def test_a_changed_task_package_is_refused_by_name(tmp_path, gateway, judges):
    import shutil

    store = open_store(tmp_path / "store")
    _saved_attempt(store, load_task(FIXTURE), seed=0, judged=2)
    tree = tmp_path / "tasks"
    shutil.copytree(FIXTURE, tree / "fx_101_sum")
    (tree / "fx_101_sum" / "references" / "eval_rule.md").write_text("# Evaluation rule\n\n## 5. Checkpoint rubric\n"
                                                                     "- 1.0 Anything goes.\n")
    with pytest.raises(RejudgeError, match=r"task fx_101_sum has hash .* its package changed"):
        rejudge_sweep(store, RejudgeConfig(source_sweep="src", supervisor_model="scripted/cont", tasks_dir=tree),
                      gateway)


def test_a_judge_that_continues_into_a_turn_the_world_cut_ends_with_that_error(tmp_path, gateway, judges):
    store = open_store(tmp_path / "store")
    _saved_attempt(store, load_task(FIXTURE), seed=0, judged=1, saved=2)  # turn 2 hit a rate limit, unjudged
    [cont] = rejudge_sweep(store, RejudgeConfig(source_sweep="src", supervisor_model="scripted/cont"), gateway)
    assert (cont.row.status, cont.row.turns, cont.row.error_message) == (Status.RATE_LIMIT, 1, "429 from the provider")
    assert math.isnan(cont.row.score) and cont.row.passed is None
    [early] = rejudge_sweep(store, RejudgeConfig(source_sweep="src", supervisor_model="scripted/early"), gateway)
    assert (early.row.status, early.row.passed) == (Status.PASS, True)  # it stopped before the cut turn


def test_the_judge_is_told_what_the_judged_attempts_web_proxy_refused(tmp_path, gateway, judges):
    store = open_store(tmp_path / "store")
    source = _saved_attempt(store, load_task(FIXTURE), seed=0, judged=2)
    blocked = store.layout("src", source.cell_key).artifacts / "web" / "blocked"
    blocked.mkdir(parents=True)
    (blocked / "0001.json").write_text(json.dumps({"method": "POST", "url": "https://api.example.test/orders",
                                                   "rule": "no-orders", "body": "{}", "body_encoding": "utf-8"}))
    [cell] = rejudge_sweep(store, RejudgeConfig(source_sweep="src", supervisor_model="scripted/web"), gateway)
    assert json.loads(cell.row.turn_scores) == [0.1, 0.1]  # both turns answered: the note was in each prompt
