"""A person reads one best turn: `clawmark run`'s table and `clawmark show` count turns from 1 as
the judge does, over the row's 0-based `best_turn` column (run once printed 0 where show said 1)."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from clawmark.attempts.closed_loop_record import CycleRecord, resolve
from clawmark.catalog import load_task
from clawmark.claws import TurnResult
from clawmark.cli.main import app
from clawmark.cli.run import CLOSED_LOOP_FIELDS, _print_row
from clawmark.judge.decision import Decision
from clawmark.results import ResultStore, Status
from clawmark.results.synthetic import example_row
from clawmark.settings import PROJECT_ROOT

FIXTURE = PROJECT_ROOT / "tests" / "fixtures" / "closed_loop" / "fx_101_sum"


def _cycle(turn: int, verdict: str, score: float, followups_left: int) -> CycleRecord:
    record = CycleRecord.start(turn, TurnResult(success=True, finish_reason="stop"), global_cut=False)
    record.cycle.decision = Decision(verdict=verdict, attempt_state="incomplete" if verdict == "continue"
                                     else "complete_and_passed", recoverable=verdict == "continue", score=score,
                                     confidence="high", rationale="r")
    record.cycle.feedback = "more please"
    record.decide(followups_left=followups_left)
    return record


def test_run_prints_the_best_turn_show_prints(tmp_path, capsys):
    task = load_task(FIXTURE)
    outcome = resolve([_cycle(0, "continue", 0.4, 2), _cycle(1, "pass", 0.95, 1)], task)
    assert (outcome.status, outcome.best_turn) == (Status.PASS, 2)  # the judge counts from 1
    store = ResultStore(tmp_path, fsync=False)
    row = example_row(task_id=task.task_id, **outcome.row_fields())
    layout = store.layout(row.sweep_id, row.cell_key)
    layout.dir.mkdir(parents=True, exist_ok=True)
    (layout.dir / "config.json").write_text(json.dumps({"task_id": task.task_id, "claw": {"name": "nop"}}))
    layout.outcome.write_text(outcome.model_dump_json(indent=2))  # as the attempt writes it
    row = row.model_copy(update={"artifacts_dir": str(layout.dir)})
    store.write(row)
    assert row.best_turn == 1  # the stored column stays 0-based

    capsys.readouterr()
    _print_row(row, False, CLOSED_LOOP_FIELDS)
    printed = re.search(r"best_turn\s*│\s*(\S+)", capsys.readouterr().out)
    shown = CliRunner().invoke(app, ["show", str(layout.dir)])
    assert shown.exit_code == 0, shown.output
    told = re.search(r"best turn (\S+),", shown.output)
    assert printed and told and printed.group(1) == told.group(1) == "2", (printed, told)
