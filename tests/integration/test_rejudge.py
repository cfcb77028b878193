"""`clawmark rejudge` on a finished closed-loop sweep (reference claw, scripted executor, three
tasks, one of them two turns long): a second scripted supervisor that disagrees on one task gives
new rows that name it, billed to the supervisor role of the gateway, with no executor call; the
report of the re-judge shows the agreement with its source (κ, agreement, the disagreeing task).
A rerun reuses the judged cells, another judge under the same id is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from clawmark.catalog import load_task
from clawmark.cli.main import app
from clawmark.gateway.ledger import read_ledger
from clawmark.results import Status
from tests.support.closed_loop_fixtures import (  # noqa: F401
    FIXTURES,
    cassettes,
    decision,
    gateway,
    sim_reply,
    store,
)

pytestmark = pytest.mark.docker
TASKS = ("fx_agree", "fx_split", "fx_two_turns")
REJUDGE = "orig--rejudge-scripted-jb"  # the default id of --supervisor-model scripted/jb-{task_id}
WRITE = "echo '{\"total\": 790.0, \"top_region\": \"East\"}' > /tmp_workspace/results/summary.json"


def _tree(root: Path) -> Path:
    """Copies of the fixture task under three ids (no checks: the supervisor's score is the score)."""
    for task_id in TASKS:
        dest = root / task_id
        shutil.copytree(FIXTURES / "closed_loop" / "fx_101_sum", dest)
        spec = dest / "task.yaml"
        spec.write_text(spec.read_text().replace("task_id: fx_101_sum", f"task_id: {task_id}"))
    return root


def _judges(cassettes) -> None:  # noqa: F811
    cont = lambda score: decision("continue", "incomplete", score, True)  # noqa: E731
    fail = lambda score: decision("fail", "complete_but_failed", score, False)  # noqa: E731
    original = {"fx_agree": [decision("pass", "complete_and_passed", 1.0)],
                "fx_split": [decision("pass", "complete_and_passed", 1.0)], "fx_two_turns": [cont(0.5), fail(0.3)]}
    for task_id, answers in original.items():
        cassettes(f"ja-{task_id}", [{"match": f"EXECUTOR TURN {turn} OF 3", "content": answer}
                                    for turn, answer in enumerate(answers, 1)])
    # The second judge answers only when the executor's saved transcript reached its prompt:
    # "Saved." ends turn 1, "Checked it again" turn 2 (tried first: turn 2's transcript holds both).
    second = {"fx_agree": [("Saved.", decision("pass", "complete_and_passed", 0.95))],
              "fx_split": [("Saved.", fail(0.2))],
              "fx_two_turns": [("Checked it again; it stands.", fail(0.35)), ("Saved.", cont(0.4))]}
    for prefix in ("jb", "jc"):
        for task_id, answers in second.items():
            cassettes(f"{prefix}-{task_id}", [{"match": seen, "content": answer} for seen, answer in answers])


@pytest.fixture
def finished_sweep(tmp_path, store, gateway, cassettes):  # noqa: F811
    from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig, run_closed_loop_attempt

    _judges(cassettes)
    executor = cassettes("exec-rj", [{"tool_calls": [{"name": "bash", "arguments": {"command": WRITE}}]},
                                     {"content": "Saved."}, {"content": "Checked it again; it stands."}])
    simulator = cassettes("sim-rj", [{"content": sim_reply("Please double-check the total.")}])
    config = ClosedLoopAttemptConfig(supervisor_model="scripted/ja-{task_id}", simulator_model=simulator)
    tree = _tree(tmp_path / "tasks")
    rows = {t: run_closed_loop_attempt(load_task(tree / t), "reference", executor, 0, store, "orig", gateway,
                                       config=config) for t in TASKS}
    assert [(rows[t].status, rows[t].turns) for t in TASKS] == [(Status.PASS, 1), (Status.PASS, 1), (Status.FAIL, 2)]
    return rows


def test_rejudge_writes_rows_of_the_new_judge_and_the_report_shows_the_agreement(finished_sweep, store, tmp_path):
    runner = CliRunner()
    done = runner.invoke(app, ["rejudge", "orig", "--supervisor-model", "scripted/jb-{task_id}",
                               "--results", str(store.root)])
    assert done.exit_code == 0, done.output
    assert f"3 judged, 0 reused, 0 skipped; agreement: clawmark report {REJUDGE}" in done.output

    rows = store.read(REJUDGE).set_index("task_id")
    assert rows["status"].to_dict() == {"fx_agree": "pass", "fx_split": "fail", "fx_two_turns": "fail"}
    assert rows.loc["fx_two_turns", "turns"] == 2 and json.loads(rows.loc["fx_two_turns", "turn_scores"]) == [0.4, 0.35]
    for task_id, source in finished_sweep.items():
        row = rows.loc[task_id]
        assert (row["rejudge_of"], row["supervisor_model"]) == (source.attempt_id, f"scripted/jb-{task_id}")
        assert (source.supervisor_model, source.rejudge_of) == (f"scripted/ja-{task_id}", None)  # a run names its judge
        assert row["cell_key"] != source.cell_key and row["attempt_id"] != source.attempt_id
        assert row["executor_calls"] == source.usage["executor"].calls  # the judged run's spend, carried
        assert row["supervisor_calls"] == row["turns"]  # one call per re-judged turn, this gateway's
        ledger = list(read_ledger(Path(row["artifacts_dir"]) / "ledger.jsonl"))
        assert {(r.role, r.model) for r in ledger} == {("supervisor", f"scripted/jb-{task_id}")}
        assert len(ledger) == row["turns"]
    second_turn = Path(rows.loc["fx_two_turns", "artifacts_dir"]) / "cycles" / "1"
    assert json.loads((second_turn / "decision.json").read_text())["decision"]["score"] == 0.35
    assert "double-check the total" in (second_turn / "prompt.txt").read_text()  # what the executor was sent
    assert (second_turn / "results" / "summary.json").is_file()

    report = runner.invoke(app, ["report", REJUDGE, "--results", str(store.root), "--out", str(tmp_path / "rep"),
                                 "--n-boot", "100"])
    assert report.exit_code == 0, report.output
    agreement = pd.read_csv(tmp_path / "rep" / "tables" / "judge_agreement.csv").iloc[0]
    # A passes fx_agree and fx_split, B only fx_agree: agreement 2/3, chance 2/3·1/3 + 1/3·2/3 = 4/9
    assert (agreement["judge_a"], agreement["judge_b"], agreement["pairs"]) == ("orig", REJUDGE, 3)
    assert agreement["agreement"] == pytest.approx(2 / 3)
    assert agreement["kappa"] == pytest.approx((2 / 3 - 4 / 9) / (1 - 4 / 9))
    assert agreement["disagree_on"] == "fx_split" and agreement["disagreements"] == 1
    page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert 'id="judge-agreement"' in page and "fx_split" in page

    again = runner.invoke(app, ["rejudge", "orig", "--supervisor-model", "scripted/jb-{task_id}",
                                "--results", str(store.root)])
    assert again.exit_code == 0 and "0 judged, 3 reused" in again.output
    other = runner.invoke(app, ["rejudge", "orig", "--supervisor-model", "scripted/jc-{task_id}", "--as", REJUDGE,
                                "--results", str(store.root)])
    assert other.exit_code == 2 and "'scripted/jb-{task_id}' → 'scripted/jc-{task_id}'" in other.output
