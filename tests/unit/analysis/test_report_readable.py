"""What a reader of the report meets: sanity baselines apart and off the front, model names without
their per-task template, an interval of [0, 1] written out instead of drawn as a bare line."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.report import build_report, plots
from analysis.report.build import display_model
from clawmark.results import to_frame, to_table
from clawmark.results.synthetic import example_row
from clawmark.results.usage import RoleUsage


def _rows() -> pd.DataFrame:
    """oracle passes everything at $0 (it would be the whole front); claws r and s are priced; model
    names carry the demo's per-task template; claw s ran two tasks, one passed."""
    rows = []
    for claw, model, cost, outcomes in (("oracle", "none", 0.0, "pppp"), ("nop", "none", 0.0, "ffff"),
                                        ("r", "scripted/demo-large-{task_id}", 0.05, "ppfp"),
                                        ("r", "scripted/demo-small-{task_id}", 0.01, "pfff"),
                                        ("s", "scripted/demo-large-{task_id}", 0.02, "pf")):
        for i, outcome in enumerate(outcomes):
            rows.append(example_row(sweep_id="read", task_id=f"t{i}", claw=claw, model=model,
                                    status="pass" if outcome == "p" else "fail", score=0.95 if outcome == "p" else 0.2,
                                    usage={"executor": RoleUsage(input_tokens=100, output_tokens=10, calls=1, cost_usd=cost)}))
    return to_frame(to_table(rows))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return build_report(_rows(), tmp_path_factory.mktemp("readable") / "report", n_boot=200).parent


def test_baselines_are_apart_and_off_the_front(report):
    board = pd.read_csv(report / "tables" / "leaderboard.csv")
    assert set(board["claw"]) == {"r", "s"}
    front = pd.read_csv(report / "tables" / "pareto_front.csv")
    assert "oracle" not in set(front["claw"]) and len(front) >= 1
    baselines = pd.read_csv(report / "tables" / "baselines.csv").set_index("claw")
    assert (baselines.loc["oracle", "pass_at_1"], baselines.loc["nop", "pass_at_1"]) == (1.0, 0.0)
    html = (report / "index.html").read_text()
    assert html.index('id="baselines"') > html.index('id="leaderboard"')


def test_model_names_drop_the_task_template(report):
    board = pd.read_csv(report / "tables" / "leaderboard.csv")
    assert set(board["model"]) == {"scripted/demo-large", "scripted/demo-small"}
    assert "{task_id}" not in (report / "index.html").read_text()
    assert display_model("scripted/demo-judge-{task_id}") == "scripted/demo-judge"
    assert display_model("gpt-5.4") == "gpt-5.4"


def test_an_interval_of_zero_to_one_is_written_not_drawn():
    points = pd.DataFrame({"claw": ["r", "s"], "model": ["m", "m"], "pass_at_1": [0.4, 0.5],
                           "ci_low": [0.2, 0.0], "ci_high": [0.6, 1.0]})
    ax = plots.leaderboard(points).axes[0]
    assert [t.get_text() for t in ax.texts] == ["interval 0–1: too few tasks"]
    assert ax.texts[0].get_position()[1] == 1  # beside s's bar (sorted by pass@1: s is on top)
    segments = [c for c in ax.collections if len(getattr(c, "get_segments", lambda: [])())]
    assert sum(len(c.get_segments()) for c in segments) == 1  # r's interval only
