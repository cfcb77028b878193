"""The report folder: page, plots (PNG + SVG), tables (Parquet + CSV), numbers computed apart."""

from __future__ import annotations

import html

import pandas as pd
import pytest
from typer.testing import CliRunner

from analysis.report import build_report
from clawmark.cli.main import app
from clawmark.results import ResultStore, from_record
from tests.support.report_rows import SWEEP, mixed_rows

PLOTS = ("leaderboard", "pareto", "tokens", "heatmap", "followup", "roles")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    expected = pd.DataFrame([{"sweep_id": SWEEP, "cell_key": "f" * 16, "claw": "r", "model": "dear", "task_id": "cl-9"}])
    index = build_report(mixed_rows(), out, config={"protocol_version": "1"}, expected=expected, n_boot=200)
    return out, index.read_text(encoding="utf-8")


def test_every_plot_is_saved_as_png_and_svg_and_inlined(report):
    out, page = report
    for name in PLOTS:
        assert (out / "plots" / f"{name}.png").stat().st_size > 1000
        assert "<path" in (out / "plots" / f"{name}.svg").read_text()
        assert f'data-plot="{name}"' in page


def test_leaderboard_numbers_match_a_hand_count(report):
    out, _ = report
    board = pd.read_parquet(out / "tables" / "leaderboard.parquet").set_index(["claw", "model"])
    assert board.loc[("r", "dear"), "pass_at_1"] == pytest.approx(1.0)
    assert board.loc[("r", "dear"), "errors"] == 1
    assert board.loc[("r", "cheap"), "pass_at_1"] == pytest.approx(0.25)
    assert board.loc[("p", "dear"), "pass_at_1"] == pytest.approx(0.5)
    assert board.loc[("r", "cheap"), "mean_cost"] == pytest.approx(0.01 * (1 + 1 / 4 + 1 / 8))
    csv = pd.read_csv(out / "tables" / "leaderboard.csv")
    assert len(csv) == 3


def test_errors_missing_failures_and_leaks_are_shown(report):
    out, page = report
    statuses = pd.read_csv(out / "tables" / "statuses.csv").set_index(["claw", "model"])
    assert statuses.loc[("r", "dear"), "missing"] == 1 and statuses.loc[("r", "dear"), "infra_error"] == 1
    failures = pd.read_csv(out / "tables" / "failure_reasons.csv")
    assert failures["failure_reason"].tolist() == ["tests_timeout"]
    leaks = pd.read_csv(out / "tables" / "leak_flags.csv")
    assert leaks[["model", "task_id"]].values.tolist() == [["cheap", "cl-2"]]
    text = html.unescape(page)
    assert "weights sum to one" in text and '"protocol_version": "1"' in text


def test_judge_cost_beside_the_executors(report):
    out, page = report
    judge = pd.read_csv(out / "tables" / "judge_cost.csv").set_index(["claw", "model", "track"])
    dear = judge.loc[("r", "dear", "closed_loop")]
    assert (dear["executor_cost_mean"], dear["judge_cost_mean"]) == pytest.approx((0.08, 0.08 / 4 + 0.08 / 8))
    assert dear["judge_cost_total"] == pytest.approx(4 * 0.03) and dear["attempts"] == 4
    patch = judge.loc[("p", "dear", "patch")]
    assert patch["judge"].startswith("n/a") and pd.isna(patch["judge_cost_mean"])  # no judge, not a free one
    section = html.unescape(page).split('<section id="judge">')[1].split("</section>")[0]
    assert "Judge cost and time" in section and "n/a" in section


def test_followup_gain_table(report):
    out, _ = report
    gain = pd.read_csv(out / "tables" / "followup_gain.csv").set_index(["model", "turn"])["pass_rate"]
    assert gain.loc[("dear", 1)] == pytest.approx(2 / 3) and gain.loc[("dear", 2)] == pytest.approx(1.0)


def test_cli_report_writes_the_report_from_the_store(tmp_path):
    store = ResultStore(tmp_path / "results")
    for record in mixed_rows().to_dict("records"):
        store.write(from_record(record))
    result = CliRunner().invoke(app, ["report", SWEEP, "--results", str(tmp_path / "results"), "--out",
                                      str(tmp_path / "out"), "--n-boot", "100"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "index.html").is_file()
    missing = CliRunner().invoke(app, ["report", "nope", "--results", str(tmp_path / "results")])
    assert missing.exit_code == 1 and "no rows" in missing.output
