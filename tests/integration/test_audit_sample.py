"""`clawmark audit` means it, on real runs: a sweep of correct runs of seven real UniClawBench
sample tasks (five capabilities, both languages; reference claw, real containers and gateway,
scripted models — see tests/support/audit_sample_runs.py) audits clean although every upstream rubric names
its public task id and every transcript states the run's own correct answers; a rubric line
planted in a follow-up and in a tool's output, a key planted in a log and a base64-encoded key
are each found, and nothing else; without the task tree the audit is an error, never "clean"."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clawmark.cli.main import app
from clawmark.results import ResultStore
from clawmark.settings import TASKS_CATALOG
from tests.support.audit_sample_runs import SAMPLE, TWO_TURNS, write_cassettes
from tests.support.closed_loop_fixtures import UPSTREAM, attempt, gateway, upstream_task  # noqa: F401

pytestmark = [pytest.mark.docker, pytest.mark.slow]
SWEEP = "sample-audit"
KEYS = {"OPENAI_API_KEY": "sk-h17fake-4f3e2d1c0b9a8f7e6d5c", "ANTHROPIC_API_KEY": "sk-ant-h17fake-1a2b3c4d5e6f"}
RUBRIC_LINE = "Numeric tolerances are tight on purpose: a near-right answer that misses the calibrated bands"
ECB_RUBRIC_LINE = "Rates change daily, so the rubric never checks a fixed number; it grades the mechanism"


@pytest.fixture(scope="module")
def swept(gateway, tmp_path_factory):  # noqa: F811
    """The results folder of one sweep of correct runs of the sample tasks."""
    root = tmp_path_factory.mktemp("sample-audit")
    (root / "cassettes").mkdir()
    models = write_cassettes(root / "cassettes")
    store = ResultStore(root / "results")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLAWMARK_CASSETTES", str(root / "cassettes"))
        for category, task_id in SAMPLE:
            executor, supervisor, simulator = models[task_id]
            attempt(upstream_task(category, task_id), executor, store, gateway, sweep_id=SWEEP,
                    supervisor_model=supervisor, simulator_model=simulator, service_timeout_s=300)
    return root / "results"


def run_audit(results: Path, *args: str):
    return CliRunner().invoke(app, ["audit", SWEEP, "--results", str(results), *args], env=KEYS)


def cell(results: Path, task_id: str) -> Path:
    rows = ResultStore(results).read(SWEEP).set_index("task_id")
    return ResultStore(results).layout(SWEEP, rows.loc[task_id, "cell_key"]).dir


def test_correct_runs_of_real_tasks_audit_clean(swept):
    rows = ResultStore(swept).read(SWEEP)
    assert sorted(rows["task_id"]) == sorted(task_id for _, task_id in SAMPLE)
    assert set(rows["status"]) == {"pass"}, rows[["task_id", "status", "error_message"]]
    assert set(rows["capability"]) == {"skill_usage", "exploration", "long_context", "multimodal", "cross_platform"}
    assert set(rows["language"]) == {"en", "zh"}
    assert rows.set_index("task_id").loc[TWO_TURNS, "turns"] == 2  # the follow-up channel was used
    for _, task_id in SAMPLE:  # what used to be flagged: the rubric names the task, the run states the answers
        folder = cell(swept, task_id)
        transcripts = " ".join(p.read_text(errors="replace") for p in folder.rglob("transcript/*.json"))
        assert task_id in (folder / "logs" / "taskenv.json").read_text()
        assert "Done. Key results" in transcripts
    outcome = run_audit(swept, "--tasks-dir", str(UPSTREAM))
    assert outcome.exit_code == 0, outcome.output
    summary = outcome.output.strip().splitlines()[-1]
    assert summary.startswith(f"audit {SWEEP}: clean;") and f"{len(SAMPLE)} cells checked" in summary, summary
    files = int(re.search(r"(\d+) files", summary).group(1))
    print(f"\nPRECISION {len(SAMPLE)} tasks, {len(rows)} cells, {files} files, 0 findings")


def plant(results: Path) -> set[str]:
    """A line of its rubric in the two-turn task's follow-up and in a tool's output of another
    task's transcript, a key in a log, a base64-encoded key in a shell log; their paths from the store."""
    two = cell(results, TWO_TURNS)
    feedback = two / "cycles" / "0" / "feedback.txt"
    feedback.write_text(feedback.read_text() + "\n" + ECB_RUBRIC_LINE + "\n")  # each cell: its own task's rubric
    one = cell(results, "task_101_03_access_log_regex")
    [messages] = (one / "cycles" / "0" / "transcript").rglob("reference-messages.json")
    data = json.loads(messages.read_text())
    data.insert(3, {"role": "tool", "tool_call_id": "x", "content": f"$ cat notes.txt\n{RUBRIC_LINE}\n"})
    messages.write_text(json.dumps(data))
    log = cell(results, "task_204_31_bye_bye_love_lrc") / "logs" / "agent.log"
    log.write_text(f"debug: Authorization: Bearer {KEYS['OPENAI_API_KEY']}\n")
    shell = cell(results, "task_205_11_denver_web_plan") / "logs" / "shell.log"
    basic = base64.b64encode(f"claw:{KEYS['ANTHROPIC_API_KEY']}".encode()).decode()
    shell.write_text(f"$ curl -H 'Authorization: Basic {basic}' https://x.test\n")
    return {p.relative_to(results).as_posix() for p in (feedback, messages, log, shell)}


def test_planted_rubric_lines_and_keys_are_found_and_nothing_else(swept, tmp_path):
    copy = tmp_path / "results"
    shutil.copytree(swept, copy, symlinks=True)
    planted = plant(copy)
    outcome = run_audit(copy, "--tasks-dir", str(UPSTREAM))
    assert outcome.exit_code == 1, outcome.output
    leaks = [line.removeprefix("LEAK ") for line in outcome.output.splitlines() if line.startswith("LEAK ")]
    assert {line.split(":", 1)[0] for line in leaks} == planted, leaks
    found = {}
    for line in leaks:
        where, what = line.split(": ", 1)
        found.setdefault(where, []).append(what)
    for where, whats in found.items():
        if where.endswith("agent.log"):
            assert whats == ["secret OPENAI_API_KEY sk-h… (31 chars)"], whats
        elif where.endswith("shell.log"):
            assert whats == ["secret ANTHROPIC_API_KEY sk-a… (27 chars), base64-encoded"], whats
        elif where.endswith("feedback.txt"):
            assert [w.startswith("rubric: 'rates change daily so the rubric never checks") for w in whats] == [True], whats
        else:  # the tool's output
            assert [w.startswith("rubric: 'numeric tolerances are tight on purpose") for w in whats] == [True], whats
    assert KEYS["OPENAI_API_KEY"] not in outcome.output


def test_without_the_task_tree_the_audit_is_an_error(swept, tmp_path):
    for args in ([], ["--tasks-dir", str(TASKS_CATALOG / "closed_loop")]):  # no tree pinned: the bundled one
        outcome = run_audit(swept, *args)
        assert outcome.exit_code == 2, outcome.output
        assert "cannot check for hidden material" in outcome.output and "give --tasks-dir" in outcome.output
        assert "holds no task task_101_03_access_log_regex" in outcome.output and "clean" not in outcome.output
    missing = run_audit(swept, "--tasks-dir", str(tmp_path / "nowhere"))
    assert missing.exit_code == 2 and "nowhere" in missing.output and "clean" not in missing.output, missing.output
