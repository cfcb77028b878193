"""The check runner (run for real, as the evaluation container runs it, on host folders) and the
host side's mapping of its output; plus the code scoring rule with hand-computed figures."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from clawmark.catalog.check_specs import ChecksFile
from clawmark.judge.checks import RUNNER, CheckResult, _results
from clawmark.judge.scoring import final_score
from tests.support.judge_tasks import write_results, write_task


def run_runner(tmp_path: Path, checks: list[dict], results: dict[str, str | bytes],
               references: dict[str, str] | None = None) -> dict[str, dict]:
    workspace, judge = tmp_path / "ws", tmp_path / "judge"
    write_results(workspace / "results", results)
    write_results(judge / "references", references or {})
    (judge / "checks.json").write_text(json.dumps(checks))
    done = subprocess.run([sys.executable, str(RUNNER), str(judge / "checks.json"), str(workspace), str(judge)],
                          capture_output=True, text=True, timeout=120, check=True)
    return {r["id"]: r for r in json.loads(done.stdout)}


def test_every_kind_passes_and_fails_on_the_right_artifact(tmp_path):
    summary = json.dumps({"total": "1,234.50", "meta": {"rows": [3, 4]}, "currency": "EUR"})
    checks = [
        {"id": "exists", "kind": "file_exists", "path": "results/summary.json"},
        {"id": "absent", "kind": "file_exists", "path": "results/nope.json"},
        {"id": "keys", "kind": "json_keys", "path": "results/summary.json", "keys": ["total", "currency"]},
        {"id": "keys_missing", "kind": "json_keys", "path": "results/summary.json", "keys": ["total", "region"]},
        {"id": "cols", "kind": "csv_columns", "path": "results/out.csv", "columns": ["date", "amount"]},
        {"id": "cols_missing", "kind": "csv_columns", "path": "results/out.csv", "columns": ["vat"]},
        {"id": "ref", "kind": "equals_reference", "path": "results/summary.json", "pointer": "meta.rows.1",
         "reference": "references/answer.json", "reference_pointer": "rows.0"},
        {"id": "ref_wrong", "kind": "equals_reference", "path": "results/summary.json", "pointer": "currency",
         "reference": "references/answer.json", "reference_pointer": "currency"},
        {"id": "re", "kind": "regex", "path": "results/notes.md", "pattern": r"\b8080\b"},
        {"id": "re_miss", "kind": "regex", "path": "results/notes.md", "pattern": r"^port 9090$"},
        {"id": "num", "kind": "number", "path": "results/summary.json", "pointer": "total", "value": 1234.49,
         "tolerance": 0.02},
        {"id": "num_off", "kind": "number", "path": "results/summary.json", "pointer": "total", "value": 1234.0,
         "tolerance": 0.1},
        {"id": "num_text", "kind": "number", "path": "results/answer.txt", "value": 42},
    ]
    results = run_runner(tmp_path, checks, {
        "summary.json": summary, "out.csv": "\ufeffdate, amount\n2024-01-01,3\n", "notes.md": "listening on 8080\n",
        "answer.txt": " 42\n"}, {"answer.json": json.dumps({"rows": [4], "currency": "USD"})})
    passed = {i for i, r in results.items() if r["passed"]}
    assert passed == {"exists", "keys", "cols", "ref", "re", "num", "num_text"}
    assert results["keys_missing"]["detail"] == "missing keys: region"
    assert results["ref_wrong"]["detail"] == 'got "EUR", the reference has "USD"'
    assert results["num_off"]["detail"] == "got 1234.5, outside the tolerance"
    assert not any(r["crashed"] for r in results.values())


def test_scripts_pass_fail_and_crash(tmp_path):
    scripts = {
        "ok.py": "import os, pathlib\nassert pathlib.Path(os.environ['CLAWMARK_RESULTS'], 'a.txt').read_text() == 'A'\n"
                 "print('a.txt is right')\n",
        "no.sh": "echo 'b.txt missing' >&2; exit 1\n",
        "boom.py": "raise KeyError('total')\n",
        "slow.py": "import time; time.sleep(30)\n",
    }
    checks = [{"id": n.split(".")[0], "kind": "script", "script": f"references/{n}", "timeout_s": 1.5} for n in scripts]
    results = run_runner(tmp_path, checks, {"a.txt": "A"}, scripts)
    assert (results["ok"]["passed"], results["ok"]["detail"]) == (True, "a.txt is right")
    assert (results["no"]["passed"], results["no"]["crashed"], results["no"]["detail"]) == (False, False, "b.txt missing")
    assert (results["boom"]["passed"], results["boom"]["crashed"]) == (False, True)
    assert "KeyError: 'total'" in results["boom"]["detail"]
    assert (results["slow"]["passed"], results["slow"]["crashed"], results["slow"]["detail"]) == (
        False, True, "script timed out after 1.5s")


def test_a_check_that_raises_is_a_failed_crashed_check_and_the_rest_still_run(tmp_path):
    checks = [{"id": "bad_pattern", "kind": "regex", "path": "results/n.md", "pattern": "("},
              {"id": "fine", "kind": "file_exists", "path": "results/n.md"}]
    results = run_runner(tmp_path, checks, {"n.md": "x"})
    assert (results["bad_pattern"]["passed"], results["bad_pattern"]["crashed"]) == (False, True)
    assert results["bad_pattern"]["detail"].startswith("error: missing )")
    assert results["fine"]["passed"] is True


def test_runner_output_maps_to_one_result_per_declared_check():
    checks = ChecksFile.model_validate({"checks": [
        {"id": "a", "checkpoint": "C1", "kind": "file_exists", "path": "results/a"},
        {"id": "b", "kind": "file_exists", "path": "results/b"}]})
    mapped = _results(checks, json.dumps([{"id": "a", "passed": True, "detail": "exists", "crashed": False}]))
    assert mapped == [CheckResult(id="a", checkpoint="C1", passed=True, detail="exists"),
                      CheckResult(id="b", passed=False, crashed=True, detail="no result: missing")]
    broken = _results(checks, RuntimeError("check runner exit 1: Killed"))
    assert [(r.passed, r.crashed) for r in broken] == [(False, True), (False, True)]
    assert "check runner exit 1: Killed" in broken[0].detail


def results_for(**passed: bool) -> list[CheckResult]:
    return [CheckResult(id=i, passed=p) for i, p in passed.items()]


def test_covered_checkpoints_score_in_code_and_supervisor_fills_the_rest(tmp_path):
    task = write_task(tmp_path)  # C1 0.2 (summary_exists), C2 0.5 (total_matches), C3 0.3 uncovered
    both = final_score(task.rubric, task.checks, results_for(summary_exists=True, total_matches=True), 0.5)
    assert both.final == pytest.approx(0.2 + 0.5 + 0.5 * 0.3)  # 0.85
    assert (both.covered_share, both.cap) == (pytest.approx(0.7), None)
    # The supervisor claims 1.0, but total_matches failed: C2 earns 0 and the cap 0.3 holds.
    capped = final_score(task.rubric, task.checks, results_for(summary_exists=True, total_matches=False), 1.0)
    assert capped.code_part == pytest.approx(0.2)
    assert capped.final == pytest.approx(0.3) and capped.caps_applied == ["total_matches"]
    # Under the cap already: 0.2 + 0.0 + 0.3 * 0.2 = 0.26
    low = final_score(task.rubric, task.checks, results_for(summary_exists=True, total_matches=False), 0.2)
    assert low.final == pytest.approx(0.26)


def test_without_checks_the_supervisor_score_is_the_score(tmp_path):
    task = write_task(tmp_path, checks=None)
    assert final_score(task.rubric, task.checks, [], 0.37).final == 0.37


def test_advisory_and_unattached_checks_only_cap(tmp_path):
    task = write_task(tmp_path, checks={"checks": [
        {"id": "notes", "checkpoint": "C3", "kind": "file_exists", "path": "results/notes.md"},
        {"id": "loose", "kind": "file_exists", "path": "results/x"}],
        "advisory": ["C3"], "caps": [{"check": "loose", "max_score": 0.5}]})
    fine = final_score(task.rubric, task.checks, results_for(notes=False, loose=True), 0.8)
    assert (fine.final, fine.covered_share) == (0.8, 0.0)
    assert final_score(task.rubric, task.checks, results_for(notes=True, loose=False), 0.8).final == 0.5
    assert not math.isnan(fine.final)


def test_an_artifact_linked_to_the_references_is_refused(tmp_path):
    checks = [{"id": "ref", "kind": "equals_reference", "path": "results/summary.json", "pointer": "total",
               "reference": "references/answer.json", "reference_pointer": "total"}]
    (tmp_path / "ws" / "results").mkdir(parents=True)
    (tmp_path / "ws" / "results" / "summary.json").symlink_to(tmp_path / "judge" / "references" / "answer.json")
    results = run_runner(tmp_path, checks, {}, {"answer.json": '{"total": 1}'})
    assert (results["ref"]["passed"], results["ref"]["detail"]) == (False, "results/summary.json leaves the workspace")


def test_staging_drops_links(tmp_path):
    from clawmark.judge.checks import _stage_results

    artifacts = write_results(tmp_path / "art", {"a.txt": "A"})
    (artifacts / "secret").symlink_to("/etc/hostname")
    staged = _stage_results(tmp_path / "stage", artifacts)
    assert sorted(p.name for p in (staged / "results").iterdir()) == ["a.txt"]


def test_the_supervisor_is_told_what_its_score_rates(tmp_path):
    from clawmark.judge.supervisor import scoring_note

    assert scoring_note(write_task(tmp_path / "a", checks=None)).startswith("Your score is the whole task's score")
    every = {"checks": [{"id": f"k{i}", "checkpoint": f"C{i}", "kind": "file_exists", "path": "results/x"}
                        for i in (1, 2, 3)]}
    assert scoring_note(write_task(tmp_path / "b", checks=every)).startswith("Every checkpoint is scored in code")
