"""Judge cost and time beside the executor's, on rows built as the attempts build them (a ledger
summarised into per-role usage, the phase clock's wall times): a priced judge is summed over
supervisor and user simulator, an unpriced judge call makes the judge cost unknown (NaN, never
0), a patch row (whose judge roles fold to true zeros) has no judge at all, and the page says n/a."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.judge_cost import JUDGED, NOT_APPLICABLE, judge_cost_table, judge_cost_view, judge_usage
from clawmark.gateway.ledger import Ledger, UsageRecord, summarize_ledger
from clawmark.results import AttemptRow, PhaseTimes, to_frame, to_table
from clawmark.results.synthetic import example_row

CALL = {"executor": (2000, 300, 0.04), "supervisor": (900, 80, 0.01), "user_simulator": (400, 50, 0.002)}


def _row(tmp_path, name: str, calls: list[str], *, unpriced: str | None = None, track: str = "closed_loop",
         wall: dict | None = None, **fields) -> AttemptRow:
    """A row as `closed_loop_finish._row` / `patch_stages` make it: the attempt's ledger summarised."""
    ledger = Ledger(tmp_path / f"{name}.jsonl")
    for role in calls:
        tokens_in, tokens_out, cost = CALL[role]
        ledger.append(UsageRecord(attempt_id=name, role=role, model="m", input_tokens=tokens_in,
                                  output_tokens=tokens_out, cost_usd=math.nan if role == unpriced else cost))
    template = example_row(track=track, task_id=name, **({"status": "resolved", "score": math.nan,
                                                           "threshold": math.nan} if track == "patch" else {}))
    identity = template.model_dump(exclude={"usage", "wall", "cell_key", "passed", "resolved", "error_kind"})
    return AttemptRow.from_usage(summarize_ledger(ledger.path), **{**identity, **fields,
                                 "wall": PhaseTimes(**(wall or {}))})


@pytest.fixture
def frame(tmp_path) -> pd.DataFrame:
    loop = ["executor", "supervisor", "executor", "supervisor", "user_simulator"]
    rows = [
        _row(tmp_path, "a", loop, wall={"executor": 40.0, "judge": 6.0}),
        _row(tmp_path, "b", ["executor", "supervisor"], wall={"executor": 20.0, "judge": 2.0}),
        _row(tmp_path, "c", ["executor", "supervisor"], unpriced="supervisor", wall={"executor": 30.0, "judge": 4.0}),
        _row(tmp_path, "p", ["executor", "executor"], track="patch", wall={"executor": 50.0}),
    ]
    return to_frame(to_table(rows))


def test_per_attempt_judge_cost_tokens_and_time(frame):
    usage = judge_usage(frame).set_index(frame["task_id"])
    assert usage.loc["a", "judge_cost_usd"] == pytest.approx(2 * 0.01 + 0.002)
    assert usage.loc["a", "judge_tokens"] == 2 * (900 + 80) + 400 + 50
    assert (usage.loc["a", "judge_wall_s"], usage.loc["a", "executor_wall_s"]) == (6.0, 40.0)
    assert usage.loc["a", "executor_cost_usd"] == pytest.approx(0.08)
    assert usage.loc["b", "judge_cost_usd"] == pytest.approx(0.01)  # no follow-up: the simulator's true 0
    assert math.isnan(usage.loc["c", "judge_cost_usd"])  # an unpriced supervisor call: unknown
    assert usage.loc["c", "judge_tokens"] == 980 and usage.loc["c", "judge_wall_s"] == 4.0
    # a patch row's judge roles are zeros in the row; it has no judge, which is not a free one
    assert frame.set_index("task_id").loc["p", "supervisor_cost_usd"] == 0.0
    assert not usage.loc["p", "judged"] and usage.loc["p", ["judge_cost_usd", "judge_tokens", "judge_wall_s"]].isna().all()


def test_table_per_configuration_and_track(frame):
    table = judge_cost_table(frame).set_index("track")
    loop, patch = table.loc["closed_loop"], table.loc["patch"]
    assert (loop["judge"], loop["attempts"], loop["judge_unpriced"]) == (JUDGED, 3, 1)
    assert loop["judge_cost_mean"] == pytest.approx((0.022 + 0.01) / 2)  # over the priced attempts
    assert math.isnan(loop["judge_cost_total"]) and math.isnan(loop["judge_share"])  # partly unknown
    assert loop["executor_cost_total"] == pytest.approx(0.08 + 0.04 + 0.04)
    assert (loop["judge_wall_s_mean"], loop["judge_wall_s_total"], loop["executor_wall_s_mean"]) == (4.0, 12.0, 30.0)
    assert loop["judge_tokens_mean"] == pytest.approx((2410 + 980 + 980) / 3)
    assert patch["judge"] == NOT_APPLICABLE and pd.isna(patch["judge_unpriced"]) and patch["attempts"] == 1
    assert patch[["judge_cost_mean", "judge_cost_total", "judge_share", "judge_wall_s_mean"]].isna().all()
    priced = judge_cost_table(frame[frame["task_id"] != "c"]).set_index("track").loc["closed_loop"]
    assert priced["judge_share"] == pytest.approx(0.032 / (0.032 + 0.12))


def test_the_page_says_n_a_where_there_is_no_judge(frame):
    view = judge_cost_view(judge_cost_table(frame)).set_index("track")
    assert view.loc["patch", "judge $ / attempt"] == "n/a" and view.loc["patch", "executor $ / attempt"] == 0.08
    assert view.loc["closed_loop", "judge s / attempt"] == 4.0 and view.loc["closed_loop", "judge unpriced"] == 1
