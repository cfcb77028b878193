"""report.json and the run summary in swebench's shape (checked against swebench's own
`get_eval_report` / `make_run_report`), atomic writes, and generated eval scripts."""

from __future__ import annotations

import json
import re
import subprocess
from types import SimpleNamespace

import pytest

from clawmark.catalog import SweInstance
from clawmark.swe.eval_script import (EvalScriptError, files_of_test_patch, heredoc_delimiter,
                                      make_eval_script)
from clawmark.swe.log_grading import grade
from clawmark.swe.swebench_report import instance_report, run_summary, write_instance_report, write_json_atomic
from tests.unit.swe.test_swe_grading_parity import LOGS, as_swebench_log, make_row, swebench_spec

GO_LOG = (LOGS / "gotest.log").read_text()


def swebench_report(row: dict, patch: str | None, log: str, tmp_path) -> dict:
    from swebench.harness.grading import get_eval_report

    path = tmp_path / "test_output.txt"
    path.write_text(as_swebench_log(log))
    prediction = {"instance_id": row["instance_id"], "model_name_or_path": "m", "model_patch": patch}
    report = get_eval_report(swebench_spec(row), prediction, str(path), include_tests_status=True)
    for entry in report.values():  # 5.0.2's advisory infra classification; we do not classify
        entry.pop("infra_failure", None)
        entry.pop("infra_failure_reason", None)
    return report


@pytest.mark.parametrize(("patch", "log"), [
    ("diff --git a/x b/x", GO_LOG),
    ("diff --git a/x b/x", GO_LOG.replace("+ : '>>>>> End Test Output'", "")),
    (None, GO_LOG),
], ids=["graded", "no-result", "patch-none"])
def test_instance_report_matches_swebench(patch, log, tmp_path):
    row = make_row("parse_log_gotest", ["TestRenderHTML", "TestRenderReader/no_headers"], ["TestRenderJSON"])
    result = grade(SweInstance.model_validate(row), log) if patch is not None else None
    assert instance_report(row["instance_id"], patch, result) == swebench_report(row, patch, log, tmp_path)


def test_run_summary_matches_swebench_make_run_report(tmp_path, monkeypatch):
    from swebench.harness.reporting import make_run_report

    resolved = {"a": {"patch_is_None": False, "patch_exists": True, "patch_successfully_applied": True,
                      "resolved": True}}
    unresolved = {"b": {"patch_is_None": False, "patch_exists": True, "patch_successfully_applied": False,
                        "resolved": False}}
    predictions = {"a": "p", "b": "p", "c": "", "d": "p", "zz": "p"}  # d errored; zz not in the dataset
    reports = {"a": resolved, "b": unresolved}
    monkeypatch.chdir(tmp_path)
    for instance_id, report in reports.items():
        folder = tmp_path / "logs" / "run_evaluation" / "run1" / "m" / instance_id
        write_instance_report(folder, report)
    dataset = [{"instance_id": i} for i in ["a", "b", "c", "d", "e"]]
    full = {key: {"instance_id": key, "model_name_or_path": "m", "model_patch": patch}
            for key, patch in predictions.items()}
    theirs = json.loads(make_run_report(full, dataset, "run1").read_text())
    ours = run_summary([row["instance_id"] for row in dataset], predictions, reports)
    shared = {key: value for key, value in theirs.items() if key in ours}
    assert ours["resolved_ids"] == ["a"] and ours["error_ids"] == ["d"] and ours["incomplete_ids"] == ["e"]
    assert {key: ours[key] for key in shared} == shared
    assert len(shared) == 14  # every swebench key but the infra classification ones
    assert ours["no_result_ids"] == ["b"]


def test_write_json_atomic_replaces_whole_file_and_leaves_no_temp(tmp_path):
    target = tmp_path / "deep" / "report.json"
    write_json_atomic(target, {"x": 1})
    write_json_atomic(target, {"x": 2})
    assert json.loads(target.read_text()) == {"x": 2}
    assert [p.name for p in target.parent.iterdir()] == ["report.json"]


def test_write_json_atomic_keeps_old_file_when_data_cannot_be_written(tmp_path):
    target = write_json_atomic(tmp_path / "report.json", {"ok": True})
    with pytest.raises(TypeError):
        write_json_atomic(target, {"bad": object()})
    assert json.loads(target.read_text()) == {"ok": True}
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


TEST_PATCH = """diff --git a/tests/test_a.py b/tests/test_a.py
index 1111111..2222222 100644
--- a/tests/test_a.py
+++ b/tests/test_a.py
@@ -1,2 +1,3 @@
 def test_a():
--- a/not_a_header.py
+    assert 1
diff --git a/tests/new_test.py b/tests/new_test.py
new file mode 100644
--- /dev/null
+++ b/tests/new_test.py
@@ -0,0 +1 @@
+def test_new(): pass
"""


def _instance(**extra):
    return SimpleNamespace(instance_id="o__r-1", base_commit="abc123", test_patch=TEST_PATCH,
                           test_cmd="pytest -rA tests", **extra)


def test_files_of_test_patch_reads_headers_only_and_tells_new_files_apart():
    assert files_of_test_patch(TEST_PATCH) == (["tests/test_a.py"], ["tests/new_test.py"])


def test_generated_eval_script_has_the_rows_order_and_records_the_exit_code():
    script = make_eval_script(_instance())
    order = ["set -uxo pipefail", "git checkout abc123 tests/test_a.py && rm -f tests/new_test.py",
             "git apply -v - <<'EOF_",
             ": '>>>>> Start Test Output'", "(pytest -rA tests) | cat", "CLAWMARK_TEST_EXIT_CODE=$?",
             ": '>>>>> End Test Output'", 'echo "clawmark:test_exit_code=$CLAWMARK_TEST_EXIT_CODE"']
    positions = [script.index(step) for step in order]
    assert positions == sorted(positions)
    assert script.rstrip().endswith("git checkout abc123 tests/test_a.py && rm -f tests/new_test.py")
    assert TEST_PATCH in script


def test_generated_eval_script_is_valid_bash_and_prints_markers_and_exit_code(tmp_path):
    instance = _instance()
    instance.test_patch = ""
    instance.test_cmd = "echo '--- PASS: TestA (0.00s)'; exit 3"
    script = make_eval_script(instance).replace("cd /testbed", f"cd {tmp_path}")
    script = "\n".join(line for line in script.splitlines() if not line.startswith("git "))
    output = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30).stdout
    region = output.split(">>>>> Start Test Output")[1].split(">>>>> End Test Output")[0]
    assert "\n--- PASS: TestA (0.00s)\n" in region
    assert "clawmark:test_exit_code=3" in output.split(">>>>> End Test Output")[1]
    row = make_row("parse_log_gotest", ["TestA"], [])
    assert grade(SimpleNamespace(**row), output).no_result_reason.value == "exit_code_contradicts_log"


def test_eval_script_needs_a_test_cmd():
    with pytest.raises(EvalScriptError, match="o__r-1.*test_cmd"):
        make_eval_script(SimpleNamespace(instance_id="o__r-1", base_commit="b", test_patch="", test_cmd=None))


def test_heredoc_delimiter_never_occurs_in_content():
    first = heredoc_delimiter("x")
    assert first not in "x" and heredoc_delimiter(f"x{first}") not in f"x{first}"


REAL_SCRIPTS = [json.loads(line) for line in (LOGS / "real_eval_scripts.jsonl").read_text().splitlines()]


def _normalised(script: str) -> list[str]:
    """Script lines minus what we add on purpose (stderr join, exit-code capture) and the
    heredoc word, which is a hash of the content in both."""
    skip = ("exec 2>&1", "CLAWMARK_TEST_EXIT_CODE=$?", 'echo "clawmark:test_exit_code=')
    lines = [line for line in script.splitlines() if not line.startswith(skip)]
    return [re.sub(r"EOF_\w+", "EOF", line) for line in lines if line.strip()]


@pytest.mark.parametrize("row", REAL_SCRIPTS, ids=[row["instance_id"] for row in REAL_SCRIPTS])
def test_generated_script_mirrors_the_real_multilingual_script(row):
    real = row["eval_script"]
    test_cmd = real.split(": '>>>>> Start Test Output'\n", 1)[1].split("\n", 1)[0]
    assert test_cmd.startswith("(") and test_cmd.endswith(") | cat")
    instance = SimpleNamespace(instance_id=row["instance_id"], base_commit=row["base_commit"],
                               test_patch=row["test_patch"], test_cmd=test_cmd[1:-len(") | cat")])
    assert _normalised(make_eval_script(instance)) == _normalised(real)
