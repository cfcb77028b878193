"""An evaluation container whose tests meet the kernel's OOM killer, through the real evaluator
on the bundled Python instance with a 256 MB evaluation memory limit: a patch that makes
`parse` allocate without bound is the measured failure `tests_oom` and stays in the pass@1
denominator, as SWE-bench counts it unresolved; what decides is the engine's own `oom` event,
not the container's cgroup files (the tests run as root with SYS_ADMIN and can mount over
them) nor anything in the log; and a container the host kills stays an excluded infra error
even after an OOM inside it."""

from __future__ import annotations

import math
import os
import threading

import pandas as pd
import pytest

from analysis.metrics import pass_at_1
from clawmark.attempts.grading import patch_outcome
from clawmark.catalog import load_instances
from clawmark.results.status import Status
from clawmark.results.synthetic import example_row
from clawmark.settings import TASKS_CATALOG
from clawmark.sweeps.plan import RERUNNABLE_ERROR_KINDS
from clawmark.swe.evaluate import EvalConfig, EvalOutcome, evaluate_prediction
from clawmark.swe.summary_status import SummaryStatus, summary_status
from tests.support.marked_container import wait_for_marked

pytestmark = pytest.mark.docker
INI = next(i for i in load_instances(TASKS_CATALOG / "swe" / "instances.jsonl") if i.instance_id.endswith("iniparse-py-1"))
SMALL = EvalConfig(reuse_reports=False, timeout_s=300, memory_mb=256)
HOG = "hog = []\nwhile True:\n    hog.append(bytearray(2**20))  # 1 MiB a step, every page touched"
CHILD_HOG = f"subprocess.run([sys.executable, '-c', {HOG!r}])"  # the kill of a child pytest survives
SEEN = "/tmp/clawmark-oom-seen"


def parse_starting_with(body: str) -> str:
    """A diff making iniparse's `parse` run `body` first."""
    lines = [f"    {line}" for line in body.splitlines()]
    return ("diff --git a/iniparse/reader.py b/iniparse/reader.py\n--- a/iniparse/reader.py\n+++ b/iniparse/reader.py\n"
            f"@@ -11,3 +11,{3 + len(lines)} @@ class IniError(ValueError):\n def parse(text):\n"
            + "".join(f"+{line}\n" for line in lines)
            + "     sections = {DEFAULT_SECTION: {}}\n     current = sections[DEFAULT_SECTION]\n")


def once(body: str) -> str:
    """`body` on the first call of the test run only (a file marks it done)."""
    return f"if not os.path.exists({SEEN!r}):\n" + "".join(f"    {line}\n" for line in body.splitlines()) \
        + f"    open({SEEN!r}, 'w').close()"


def row_of(outcome: EvalOutcome):
    patch = patch_outcome(outcome)
    return example_row(track="patch", task_id=outcome.instance_id, status=patch.status, score=math.nan,
                       error_kind=patch.error_kind, failure_reason=patch.failure_reason,
                       network_policy=patch.network_policy)


def pass_at_1_with_a_resolved_row(outcome: EvalOutcome) -> pd.Series:
    resolved = EvalOutcome(instance_id="other-task", status=Status.RESOLVED, resolution="RESOLVED_FULL")
    frame = pd.DataFrame([row_of(resolved).model_dump(), row_of(outcome).model_dump()])
    return pass_at_1(frame, n_boot=50).iloc[0]


def assert_counted_failure(outcome: EvalOutcome, row_status: str, error_kind: str) -> None:
    row = row_of(outcome)
    assert (row.status, row.error_kind, row.failure_reason, row.resolved) == (row_status, error_kind, "tests_oom", False)
    assert row.error_kind.value not in RERUNNABLE_ERROR_KINDS
    line = pass_at_1_with_a_resolved_row(outcome)
    assert (line["pass_at_1"], line["trials"], line["errors"]) == (0.5, 2, 0)  # a failure, in the denominator


def test_tests_that_fill_the_evaluators_memory_are_the_measured_failure_tests_oom(tmp_path, docker_client):
    outcome = evaluate_prediction(INI, parse_starting_with(HOG), tmp_path, SMALL)
    log = outcome.log_path.read_text()
    assert (summary_status(outcome), outcome.failure_reason) == (SummaryStatus.NO_RESULT, "tests_oom"), (outcome.detail, log[-2000:])
    assert "256 MB memory limit" in outcome.detail and "Killed" in log
    assert_counted_failure(outcome, "eval_failed", "model")


def test_an_oom_kill_the_test_runner_survives_is_graded_and_named(tmp_path, docker_client):
    patch = parse_starting_with("import os, subprocess, sys\n" + once(CHILD_HOG))
    outcome = evaluate_prediction(INI, patch, tmp_path, SMALL)
    failed = outcome.report[INI.instance_id]["tests_status"]["FAIL_TO_PASS"]["failure"] if outcome.report else None
    assert (outcome.status, outcome.failure_reason) == (Status.UNRESOLVED, "tests_oom"), outcome.detail
    assert failed == INI.FAIL_TO_PASS  # graded on what pytest reported: the fix is missing
    assert_counted_failure(outcome, "unresolved", "none")  # graded, as any


FORGE = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
assert libc.mount(b"none", b"/sys/fs/cgroup", b"tmpfs", 0, None) == 0, os.strerror(ctypes.get_errno())
os.mkdir("/sys/fs/cgroup/memory")
for name in ("memory.events", "memory/memory.oom_control"):
    open("/sys/fs/cgroup/" + name, "w").write("oom 5\\noom_kill 5\\n")
open("/tmp/clawmark-eval/before_tests.txt", "a").write("forged: " + open("/sys/fs/cgroup/memory.events").read())
os._exit(137)"""


def test_a_forged_cgroup_oom_count_is_not_believed(tmp_path, docker_client):
    """The tests rewrite the container's own OOM count and exit 137 as a killed process would:
    no OOM happened, so the engine recorded none, and the run is what its log shows."""
    outcome = evaluate_prediction(INI, parse_starting_with(FORGE), tmp_path, SMALL)
    before_tests = outcome.log_path.read_text().split(">>>>> Start Test Output")[0]
    assert "forged: oom 5" in before_tests  # the forgery took effect in the container
    assert (summary_status(outcome), outcome.failure_reason) == (SummaryStatus.NO_RESULT, "log_unusable"), outcome.detail
    assert "OOM" not in outcome.detail
    row = row_of(outcome)
    assert (row.status, row.error_kind, row.resolved) == ("eval_failed", "model", False)


def test_a_container_the_host_kills_after_an_oom_stays_an_excluded_infra_error(tmp_path, docker_client):
    """The engine marks the container OOMKilled once any process in it was OOM-killed; the host's
    kill still decides: the engine recorded it, so the row is container_gone, rerunnable."""
    patch = parse_starting_with("import os, subprocess, sys, time\n" + once(CHILD_HOG) + "\ntime.sleep(600)")
    killer = threading.Thread(target=_kill_after_the_oom, args=(docker_client,), daemon=True)
    killer.start()
    outcome = evaluate_prediction(INI, patch, tmp_path, SMALL.model_copy(update={"timeout_s": 600}))
    killer.join(timeout=60)
    assert (outcome.status, outcome.failure_reason) == (Status.INFRA_ERROR, "container_gone"), outcome.detail
    assert "OOM" in outcome.detail  # the engine's State.OOMKilled, which alone does not decide
    row = row_of(outcome)
    assert row.resolved is None and row.error_kind.value in RERUNNABLE_ERROR_KINDS
    line = pass_at_1_with_a_resolved_row(outcome)
    assert (line["pass_at_1"], line["trials"], line["errors"]) == (1.0, 1, 1)  # out of the denominator


def _kill_after_the_oom(client, patience_s: float = 300) -> None:
    """Kill this process's evaluation container, as the host would, once its tests' child was
    OOM-killed (other engineers' containers carry another owner pid)."""
    labels = [f"clawmark.owner_pid={os.getpid()}", "clawmark.role=swe-eval"]
    container = wait_for_marked(client, labels, SEEN, patience_s)
    if container is not None:
        container.kill()
