"""The evaluator in real containers, on EVERY bundled instance: the gold patch resolves, an empty
patch is not run, the reversed gold patch and a patch that applies but fixes nothing do not
resolve; plus one instance each for apply_failed, eval_timeout and image_missing."""

from __future__ import annotations

import subprocess

import pytest

from clawmark.catalog import load_instances
from clawmark.results.status import Status
from clawmark.settings import TASKS_CATALOG
from clawmark.swe.evaluate import EvalConfig, evaluate_prediction
from clawmark.swe.summary_status import SummaryStatus, summary_status

pytestmark = pytest.mark.docker
INSTANCES = load_instances(TASKS_CATALOG / "swe" / "instances.jsonl")
BY_ID = {i.instance_id: i for i in INSTANCES}
IDS = sorted(BY_ID)
FRESH = EvalConfig(reuse_reports=False, timeout_s=600)
ONE_PER_LANGUAGE = sorted({i.language: i.instance_id for i in INSTANCES}.values())  # keeps suite time down


def _reversed_gold(instance, tmp_path) -> str:
    """What `git apply -R` would apply: the gold diff from the fixed tree back to the base."""
    repo = tmp_path / "host-clone"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(instance.repo_bundle), str(repo)], check=True)
    subprocess.run(["git", "checkout", "-q", "--detach", instance.base_commit], cwd=repo, check=True)
    subprocess.run(["git", "apply", "-"], cwd=repo, input=instance.patch, text=True, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    return subprocess.run(["git", "diff", "--cached", "-R"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout


def test_the_bundled_suite_is_there_to_evaluate():
    assert len(INSTANCES) >= 4 and all(i.repo_bundle and i.repo_bundle.is_file() for i in INSTANCES)


@pytest.mark.parametrize("iid", IDS)
def test_gold_patch_resolves(iid, tmp_path, docker_client):
    outcome = evaluate_prediction(BY_ID[iid], BY_ID[iid].patch, tmp_path, FRESH)
    assert outcome.status is Status.RESOLVED, (outcome.detail, outcome.log_path and outcome.log_path.read_text()[-3000:])
    assert outcome.report[iid]["resolved"] is True and outcome.resolution.swebench == "RESOLVED_FULL"
    assert (tmp_path / iid / "report.json").is_file() and (tmp_path / iid / "test_output.txt").is_file()
    assert outcome.apply_method == "git apply"


@pytest.mark.parametrize("iid", IDS)
def test_empty_patch_is_not_run(iid, tmp_path):
    for patch in ("", None, "  \n"):
        outcome = evaluate_prediction(BY_ID[iid], patch, tmp_path, FRESH)
        assert outcome.status is Status.EMPTY_PATCH and outcome.report is None
    assert not (tmp_path / iid).exists()


@pytest.mark.parametrize("iid", IDS)
def test_reversed_gold_patch_does_not_resolve(iid, tmp_path, docker_client):
    reversed_patch = _reversed_gold(BY_ID[iid], tmp_path)
    assert reversed_patch.strip()
    outcome = evaluate_prediction(BY_ID[iid], reversed_patch, tmp_path / "out", FRESH)
    # Its preimage is the fixed code: it either fails to apply at base, or (3-way merge against the
    # fix blob the eval image still holds) applies as a no-op; both must stay unresolved.
    assert outcome.status in (Status.APPLY_FAILED, Status.UNRESOLVED), outcome
    if outcome.status is Status.UNRESOLVED:
        assert outcome.report[iid]["tests_status"]["FAIL_TO_PASS"]["failure"]


@pytest.mark.parametrize("iid", ONE_PER_LANGUAGE)
def test_patch_that_applies_but_fixes_nothing_is_unresolved(iid, tmp_path, docker_client):
    unrelated = ("diff --git a/CLAWMARK_NOTES.md b/CLAWMARK_NOTES.md\nnew file mode 100644\n"
                 "--- /dev/null\n+++ b/CLAWMARK_NOTES.md\n@@ -0,0 +1 @@\n+looked at it, changed nothing\n")
    outcome = evaluate_prediction(BY_ID[iid], unrelated, tmp_path, FRESH)
    assert outcome.status is Status.UNRESOLVED, outcome.detail
    status = outcome.report[iid]["tests_status"]
    assert status["FAIL_TO_PASS"]["failure"] and not status["PASS_TO_PASS"]["failure"]


def test_patch_that_does_not_apply_is_apply_failed_without_report(tmp_path, docker_client):
    iid = IDS[0]
    stale = "diff --git a/no_such_file.txt b/no_such_file.txt\n--- a/no_such_file.txt\n+++ b/no_such_file.txt\n" \
            "@@ -1,2 +1,2 @@\n context\n-old\n+new\n"
    outcome = evaluate_prediction(BY_ID[iid], stale, tmp_path, FRESH)
    assert outcome.status is Status.APPLY_FAILED and outcome.report is None
    assert not (tmp_path / iid / "report.json").exists()
    assert (tmp_path / iid / "run_instance.log").read_text().count("$ ") == 4


def test_eval_past_its_deadline_is_eval_timeout(tmp_path, docker_client):
    iid = IDS[0]
    script = "#!/bin/bash\necho '>>>>> Start Test Output'\nsleep 600; echo slept\necho '>>>>> End Test Output'\n"
    slow = BY_ID[iid].model_copy(update={"eval_script": script})
    outcome = evaluate_prediction(slow, BY_ID[iid].patch, tmp_path, EvalConfig(reuse_reports=False, timeout_s=3))
    assert (summary_status(outcome), outcome.failure_reason) == (SummaryStatus.EVAL_TIMEOUT, "tests_timeout")
    assert outcome.report is None
    log = outcome.log_path.read_text()  # the region started, and the sleep was cut before it ended
    assert ">>>>> Start Test Output [" in log and "slept" not in log and ">>>>> End Test Output [" not in log


def test_real_test_run_with_a_tiny_deadline_is_eval_timeout(tmp_path, docker_client):
    rust = next(i for i in INSTANCES if i.language == "rust")  # cargo compiles for seconds first
    outcome = evaluate_prediction(rust, rust.patch, tmp_path, EvalConfig(reuse_reports=False, timeout_s=1))
    assert summary_status(outcome) is SummaryStatus.EVAL_TIMEOUT and not (tmp_path / rust.instance_id / "report.json").exists()


def test_missing_row_image_is_image_missing(tmp_path, docker_client):
    iid = IDS[0]
    absent = BY_ID[iid].model_copy(update={"image": "clawmark-test/never-built:absent"})
    outcome = evaluate_prediction(absent, BY_ID[iid].patch, tmp_path, FRESH)
    assert summary_status(outcome) is SummaryStatus.IMAGE_MISSING and "never-built" in outcome.detail


def test_same_patch_reuses_its_report(tmp_path, docker_client):
    iid = IDS[0]
    first = evaluate_prediction(BY_ID[iid], BY_ID[iid].patch, tmp_path, FRESH)
    again = evaluate_prediction(BY_ID[iid], BY_ID[iid].patch, tmp_path, EvalConfig())
    assert first.status is again.status is Status.RESOLVED
    assert again.detail == "reused existing report.json" and "eval" not in again.durations  # no container ran


def test_row_that_brings_its_own_present_image_is_evaluated_with_it(tmp_path, docker_client):
    """Real SWE-bench rows name a prebuilt image and carry no bundle or recipe: that path needs
    no build (there is nothing it could build from)."""
    from clawmark.swe.instance_image import instance_image

    iid = IDS[0]
    own = BY_ID[iid].model_copy(update={"image": instance_image(BY_ID[iid]), "repo_bundle": None,
                                        "image_recipe": None, "language": None})
    outcome = evaluate_prediction(own, own.patch, tmp_path, FRESH)
    assert outcome.status is Status.RESOLVED and outcome.network_policy == "default"


def test_row_without_eval_script_or_test_cmd_is_eval_error_and_old_report_goes(tmp_path, docker_client):
    iid = IDS[0]
    assert evaluate_prediction(BY_ID[iid], BY_ID[iid].patch, tmp_path, FRESH).status is Status.RESOLVED
    bare = BY_ID[iid].model_copy(update={"eval_script": None, "test_cmd": None})
    outcome = evaluate_prediction(bare, BY_ID[iid].patch + "\n", tmp_path, FRESH)
    assert outcome.status is Status.EVAL_ERROR and "test_cmd" in outcome.detail
    assert not (tmp_path / iid / "report.json").exists()
