"""`clawmark import`: the published tables become rows whose report reproduces the published
figures exactly, and bad files are refused with the file, row and field named."""

from __future__ import annotations

import json
import math
from collections import defaultdict

import pandas as pd
import pytest
from typer.testing import CliRunner

from analysis.judge_cost import NOT_APPLICABLE, NOT_PUBLISHED
from analysis.leaderboard import load_leaderboard
from analysis.pareto import pareto_front
from analysis.report import build_report
from clawmark.cli.main import app
from clawmark.results import ResultStore
from clawmark.results.imports import ImportInvalid, import_csb_leaderboard, import_ucb_results
from tests.support.published_tables import CSB_LEADERBOARD, UCB_RESULTS, UCB_RUNS, imported_store

CLAW_OF_BACKEND = {"openclaw": "openclaw", "nanobot": "nanobot", "openclaw_edict": "edict"}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return imported_store(tmp_path_factory.mktemp("published"))


@pytest.fixture(scope="module")
def reports(store, tmp_path_factory):
    folder = tmp_path_factory.mktemp("reports")
    return {sweep: build_report(store.read(sweep), folder / sweep, n_boot=200).parent for sweep in ("ucb", "csb")}


def test_leaderboard_csv_reproduces_every_published_pass_rate(reports):
    passed, total = defaultdict(int), defaultdict(int)
    for row in json.loads(UCB_RESULTS.read_text())["rows"]:
        key = (CLAW_OF_BACKEND[row["backend"]], row["model_slug"])
        passed[key] += row["passed"]
        total[key] += 1
    board = pd.read_csv(reports["ucb"] / "tables" / "leaderboard.csv")
    got = {(r.claw, r.model): r.pass_at_1 for r in board.itertuples()}
    assert got == {key: passed[key] / total[key] for key in total} and len(got) == 16
    top = board.iloc[0]
    assert (top.claw, top.model, top.pass_at_1) == ("openclaw", "claude-opus-4.8", 0.475)
    assert top.ci_low < 0.455 < top.ci_high and top.rank_high >= 2  # the paper's top two are not separated
    assert board["mean_cost"].isna().all()  # no cost is published: NaN, never 0


def test_imported_rows_have_no_judge_cost(reports):
    ucb = pd.read_csv(reports["ucb"] / "tables" / "judge_cost.csv")
    assert len(ucb) == 16 and (ucb["judge"] == NOT_PUBLISHED).all()
    assert ucb[["judge_cost_mean", "judge_cost_total", "judge_tokens_mean", "judge_wall_s_mean"]].isna().all().all()
    csb = pd.read_csv(reports["csb"] / "tables" / "judge_cost.csv")
    assert (csb["track"] == "patch").all() and (csb["judge"] == NOT_APPLICABLE).all() and csb["judge_cost_mean"].isna().all()


def test_imported_rows_carry_their_source_and_only_what_it_gives(store):
    rows = store.read("ucb")
    raw = json.loads(UCB_RESULTS.read_text())["rows"]
    assert len(rows) == 6400 and rows["imported_from"].str.startswith("UniClawBench/UniClawBench.github.io@17bad99").all()
    assert rows["cost_usd"].isna().all() and rows["threshold"].isna().all()
    known = sum(r["prompt_tokens"] is not None and r["prompt_tokens"] >= 0 for r in raw)
    assert rows["executor_input_tokens"].notna().sum() == known
    assert set(rows["status"]) == {"pass", "fail", "budget_exhausted", "global_timeout"}
    relabelled = rows[rows["failure_reason"] == "published_pass_not_passed"]
    assert len(relabelled) == 9 and not relabelled["passed"].any()
    assert (rows.groupby("capability")["task_id"].nunique() == 80).all()


def test_followup_tables_come_from_runs(reports):
    effect = pd.read_csv(reports["ucb"] / "tables" / "followup_effect.csv")
    runs = json.loads(UCB_RUNS.read_text())
    fields = runs["fields"]
    rescued = sum(1 for r in runs["runs"] if dict(zip(fields, r))["passed"] and dict(zip(fields, r))["supervisionCycleCount"] > 1)
    assert effect["rescued"].sum() == rescued and effect["rows"].sum() == 6400


def test_harness_model_decomposition_on_the_three_by_three_grid(reports):
    cells = pd.read_csv(reports["ucb"] / "tables" / "harness_model_cells.csv")
    assert sorted(set(cells["claw"])) == ["edict", "nanobot", "openclaw"]
    assert sorted(set(cells["model"])) == ["claude-opus-4.8", "gpt-5.4", "kimi-k2.6"]
    effects = pd.read_csv(reports["ucb"] / "tables" / "harness_model_effects.csv").set_index("effect")
    assert (effects["ci_low_pp"] <= effects["pp"]).all() and (effects["pp"] <= effects["ci_high_pp"]).all()
    assert effects.loc["harness", "statement"].startswith("Harness choice moves pass@1 by")


def test_csb_front_is_the_published_front(reports):
    published = load_leaderboard(CSB_LEADERBOARD)
    expected = pareto_front(published[published["comparison"] == "OpenClaw harness"], cost="total_cost")
    front = pd.read_csv(reports["csb"] / "tables" / "pareto_front.csv")
    assert list(front["model"]) == list(expected["model"])
    assert [round(v, 1) for v in front["total_cost"]] == list(expected["total_cost"])
    assert [round(v, 3) for v in front["pass_at_1"]] == [round(v, 3) for v in expected["pass_at_1"]]
    assert (front["model"].iloc[0], front["total_cost"].iloc[0]) == ("DeepSeek-V4 Flash", pytest.approx(8.2))
    assert (front["model"].iloc[-1], front["pass_at_1"].iloc[-1]) == ("GPT 5.5", pytest.approx(0.78))


def test_csb_setups_share_no_task(store):
    rows = store.read("csb")
    assert rows.groupby("task_id")[["claw", "model"]].nunique().max().max() == 1
    totals = rows.groupby(["claw", "model"])["cost_usd"].sum()
    assert math.isclose(totals[("openclaw", "GPT 5.5")], 1399.1)


def _truncated(tmp_path, source):
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes()[:5000])
    return path


def _edited(tmp_path, source, edit, name):
    """A copy of published file `source` in tmp_path, as `edit` leaves it."""
    data = json.loads(source.read_text())
    edit(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _ucb_with(tmp_path, edit):
    return _edited(tmp_path, UCB_RESULTS, lambda data: (data.update(rows=data["rows"][:20]), edit(data)),
                   "results.json")


@pytest.mark.parametrize("make, field, row", [
    (lambda tmp: CSB_LEADERBOARD, "schema", None),
    (lambda tmp: _truncated(tmp, UCB_RESULTS), "document", None),
    (lambda tmp: _ucb_with(tmp, lambda d: d["rows"][3].pop("task_id")), "task_id", "rows[3]"),
    (lambda tmp: _ucb_with(tmp, lambda d: d["rows"][5].update(backend="hermes")), "backend", "rows[5] (task_101_06"),
    (lambda tmp: _ucb_with(tmp, lambda d: d["rows"][7].update(passed="yes")), "passed", "rows[7]"),
    (lambda tmp: _ucb_with(tmp, lambda d: d["rows"].append(dict(d["rows"][0]))), "task_id", "rows[20]"),
])
def test_ucb_bad_input_names_row_and_field(tmp_path, make, field, row):
    with pytest.raises(ImportInvalid) as err:
        import_ucb_results(ResultStore(tmp_path / "store"), "bad", make(tmp_path))
    assert err.value.field == field
    assert (row is None and err.value.row is None) or err.value.row.startswith(row)
    assert not (tmp_path / "store" / "rows" / "bad").exists()  # nothing half-imported


def test_ucb_runs_that_disagree_are_refused(tmp_path):
    runs = json.loads(UCB_RUNS.read_text())
    runs["runs"][2][runs["fields"].index("passed")] = not runs["runs"][2][runs["fields"].index("passed")]
    (tmp_path / "runs.json").write_text(json.dumps(runs))
    with pytest.raises(ImportInvalid, match=r"runs\[2\] \(task_101_03.*passed: expected the results file's passed"):
        import_ucb_results(ResultStore(tmp_path / "store"), "bad", UCB_RESULTS, tmp_path / "runs.json")


def _csb_with(tmp_path, edit):
    return _edited(tmp_path, CSB_LEADERBOARD, edit, "board.json")


@pytest.mark.parametrize("make, field, row", [
    (lambda tmp: UCB_RESULTS, "sections", None),
    (lambda tmp: _truncated(tmp, CSB_LEADERBOARD), "document", None),
    (lambda tmp: _csb_with(tmp, lambda d: d["sections"]["openclaw"]["rows"][2].pop("resolved")), "resolved",
     "sections.openclaw.rows[2]"),
    (lambda tmp: _csb_with(tmp, lambda d: d["sections"]["claws"]["groups"][0]["rows"][1].update(system="Codex")),
     "system", "sections.claws.groups[0].rows[1]"),
    (lambda tmp: _csb_with(tmp, lambda d: d["sections"]["openclaw"]["rows"][0].update(total_pass1=90.0)), "total_pass1",
     "sections.openclaw.rows[0]"),
])
def test_csb_bad_input_names_row_and_field(tmp_path, make, field, row):
    with pytest.raises(ImportInvalid) as err:
        import_csb_leaderboard(ResultStore(tmp_path / "store"), "bad", make(tmp_path))
    assert err.value.field == field and err.value.row == row


def test_cli_refuses_bad_input_and_imports_good(tmp_path):
    runner = CliRunner()
    bad = runner.invoke(app, ["import", "csb-leaderboard", str(UCB_RESULTS), "--as", "x", "--results", str(tmp_path)])
    assert bad.exit_code == 2 and "sections: expected" in bad.output
    good = runner.invoke(app, ["import", "csb-leaderboard", str(CSB_LEADERBOARD), "--as", "csb", "--results", str(tmp_path)])
    assert good.exit_code == 0 and "imported 6300 rows (18 setups)" in good.output
