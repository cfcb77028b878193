"""Judge agreement: κ, agreement and score correlation against hand counts, error rows kept out of
the pass/fail figures, undefined κ as NaN, and the report's section and tables."""

from __future__ import annotations

import html
import math

import pandas as pd
import pytest

from typer.testing import CliRunner

from analysis.agreement import cohen_kappa, judge_agreement
from analysis.report import build_report
from clawmark.cli.main import app
from clawmark.results import ResultStore, from_record, to_frame, to_table
from clawmark.results.synthetic import example_row

# (task, judge A status/score, judge B status/score): A passes 3 of 5, B 2 of 5; they differ on t3 and t5.
OUTCOMES = [("t1", "pass", 1.0, "pass", 0.95), ("t2", "pass", 0.95, "pass", 0.9), ("t3", "pass", 0.92, "fail", 0.3),
            ("t4", "fail", 0.2, "fail", 0.1), ("t5", "fail", 0.5, "pass", 0.91), ("t6", "fail", 0.4, "infra_error",
                                                                                  math.nan)]


def _sweeps(outcomes=OUTCOMES) -> tuple[pd.DataFrame, pd.DataFrame]:
    source, rejudged = [], []
    for task, status_a, score_a, status_b, score_b in outcomes:
        run = example_row(sweep_id="orig", task_id=task, status=status_a, score=score_a, attempt_id=f"att-{task}",
                          supervisor_model=f"scripted/a-{task}")
        source.append(run)
        rejudged.append(example_row(sweep_id="orig--rejudge-b", task_id=task, status=status_b, score=score_b,
                                    model_params_hash="other", supervisor_model="judge/b", rejudge_of=run.attempt_id))
    return to_frame(to_table(source)), to_frame(to_table(rejudged))


def test_kappa_agreement_and_correlation_match_a_hand_count():
    found = judge_agreement(pd.concat(_sweeps(), ignore_index=True))
    summary = found.summary.iloc[0]
    # 5 judged pairs: agree on t1, t2, t4 -> 3/5; p_A(pass)=3/5, p_B(pass)=3/5 (t1, t2, t5)
    chance = 0.6 * 0.6 + 0.4 * 0.4
    assert (summary["judge_a"], summary["judge_b"]) == ("orig", "orig--rejudge-b")
    assert (summary["pairs"], summary["unjudged"], summary["disagreements"]) == (6, 1, 2)
    assert summary["agreement"] == pytest.approx(0.6)
    assert summary["kappa"] == pytest.approx((0.6 - chance) / (1 - chance))
    a, b = [1.0, 0.95, 0.92, 0.2, 0.5], [0.95, 0.9, 0.3, 0.1, 0.91]
    assert summary["score_r"] == pytest.approx(pd.Series(a).corr(pd.Series(b)))
    assert (summary["both_pass"], summary["a_only"], summary["b_only"], summary["both_fail"]) == (2, 1, 1, 1)
    assert summary["disagree_on"] == "t3; t5" and summary["supervisor_b"] == "judge/b"
    assert found.disagreements["task_id"].tolist() == ["t3", "t5"]


def test_kappa_is_nan_when_both_judges_give_one_label_to_everything():
    assert math.isnan(cohen_kappa(pd.Series([True, True]), pd.Series([True, True])))
    assert cohen_kappa(pd.Series([True, False]), pd.Series([False, True])) == pytest.approx(-1.0)
    same = [("t1", "pass", 1.0, "pass", 0.95), ("t2", "pass", 0.95, "pass", 0.95)]
    summary = judge_agreement(pd.concat(_sweeps(same), ignore_index=True)).summary.iloc[0]
    assert summary["agreement"] == 1.0 and math.isnan(summary["kappa"]) and math.isnan(summary["score_r"])


def test_rows_of_unrelated_attempts_are_not_paired():
    source, rejudged = _sweeps()
    rejudged = rejudged.assign(rejudge_of="someone-else")
    assert judge_agreement(pd.concat([source, rejudged], ignore_index=True)).summary.empty


def test_the_report_of_a_rejudge_shows_the_agreement(tmp_path):
    source, rejudged = _sweeps()
    index = build_report(rejudged, tmp_path, judges=source, n_boot=100)
    page = html.unescape(index.read_text(encoding="utf-8"))
    assert 'id="judge-agreement"' in page and "t3; t5" in page
    table = pd.read_csv(tmp_path / "tables" / "judge_agreement.csv")
    assert table.loc[0, "agreement"] == pytest.approx(0.6) and table.loc[0, "disagreements"] == 2
    assert len(pd.read_parquet(tmp_path / "tables" / "judge_pairs.parquet")) == 6
    plain = build_report(rejudged, tmp_path / "plain", n_boot=100)
    assert 'id="judge-agreement"' not in plain.read_text(encoding="utf-8")


def test_report_finds_the_other_judge_from_either_side_or_as_named(tmp_path):
    store = ResultStore(tmp_path / "results")
    for frame in _sweeps():
        for record in frame.to_dict("records"):
            store.write(from_record(record))
    runner = CliRunner()

    def agreement(*args: str) -> pd.Series:
        done = runner.invoke(app, ["report", *args, "--results", str(store.root), "--out", str(tmp_path / args[0]),
                                   "--n-boot", "100"])
        assert done.exit_code == 0, done.output
        return pd.read_csv(tmp_path / args[0] / "tables" / "judge_agreement.csv").iloc[0]

    assert agreement("orig", "--compare-judges", "orig--rejudge-b")["disagree_on"] == "t3; t5"
    store.pin_config("orig--rejudge-b", {"rejudge": {"source_sweep": "orig", "supervisor_model": "judge/b"}})
    assert agreement("orig--rejudge-b")["agreement"] == pytest.approx(0.6)  # the re-judge names its source
    assert agreement("orig")["judge_b"] == "orig--rejudge-b"  # the source finds its re-judge
    missing = runner.invoke(app, ["report", "orig", "--compare-judges", "nowhere", "--results", str(store.root),
                                  "--out", str(tmp_path / "x")])
    assert missing.exit_code == 1 and "no rows in sweep nowhere" in missing.output
