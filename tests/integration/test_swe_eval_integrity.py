"""A patch cannot buy its way out of the denominator: through the real evaluator in a container,
every way a patch can break its own evaluation ends resolved=False with its reason and stays in
pass@1, while a container the host kills mid-evaluation stays an excluded, rerunnable error.

The patches add a Go test file to a bundled Go instance (go test runs files in name order, so
`aaa_*_test.go` runs before the real tests and `go test -v` prints straight to the log)."""

from __future__ import annotations

import json
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
from clawmark.swe.evaluate import EvalConfig, evaluate_prediction
from clawmark.swe.summary_status import SummaryStatus, summary_status
from tests.support.attempt_fixtures import INI, attempt, gateway, store  # noqa: F401
from tests.support.marked_container import wait_for_marked

pytestmark = pytest.mark.docker
GO = next(i for i in load_instances(TASKS_CATALOG / "swe" / "instances.jsonl") if i.instance_id.endswith("envfile-go-1"))
QUICK = EvalConfig(reuse_reports=False, timeout_s=120)
ALL_TESTS = [*GO.FAIL_TO_PASS, *GO.PASS_TO_PASS]


def go_test_file(name: str, imports: list[str], body: str) -> str:
    """A diff adding `aaa_<name>_test.go` with one test function whose body is `body`."""
    lines = ["package envfile", "", "import (", *[f'\t"{module}"' for module in imports], ")", "",
             f"func TestAaa{name.title()}(t *testing.T) {{", *[f"\t{line}" for line in body.splitlines()], "}"]
    path = f"aaa_{name}_test.go"
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines))


def printing(name: str, lines: list[str]) -> str:
    return go_test_file(name, ["fmt", "testing"], "\n".join(f"fmt.Println({json.dumps(line)})" for line in lines))


def counted(outcome) -> pd.Series:
    """pass@1 of a table holding this outcome's row and one resolved row of another task."""
    rows = [_row("other-task", patch_outcome(_resolved())), _row(GO.instance_id, patch_outcome(outcome))]
    frame = pd.DataFrame([row.model_dump() for row in rows])
    return pass_at_1(frame, n_boot=50).iloc[0]


def _row(task_id: str, outcome):
    return example_row(track="patch", task_id=task_id, status=outcome.status, score=math.nan,
                       error_kind=outcome.error_kind, failure_reason=outcome.failure_reason,
                       network_policy=outcome.network_policy)


def _resolved():
    from clawmark.swe.evaluate import EvalOutcome

    return EvalOutcome(instance_id="other-task", status=Status.RESOLVED, resolution="RESOLVED_FULL")


def assert_measured_failure(outcome, status: SummaryStatus, reason: str) -> None:
    assert (summary_status(outcome), outcome.failure_reason) == (status, reason), (outcome.detail, outcome.log_path and outcome.log_path.read_text()[-2000:])
    row = _row(GO.instance_id, patch_outcome(outcome))
    assert row.resolved is False and row.error_kind.value not in RERUNNABLE_ERROR_KINDS
    line = counted(outcome)
    assert (line["pass_at_1"], line["trials"], line["errors"]) == (0.5, 2, 0)  # in the denominator


def test_patch_printing_tests_errored_is_a_measured_failure(tmp_path, docker_client):
    outcome = evaluate_prediction(GO, GO.patch + printing("errored", [">>>>> Tests Errored"]), tmp_path, QUICK)
    assert_measured_failure(outcome, SummaryStatus.NO_RESULT, "tests_errored")


def test_marker_text_in_the_patch_itself_is_never_read_as_a_verdict(tmp_path, docker_client):
    header = "@@ -1,4 +1,5 @@\n"  # the gold patch's first hunk: two comment lines more
    assert header in GO.patch
    commented = GO.patch.replace(header, "@@ -1,4 +1,7 @@\n+// >>>>> Tests Errored\n+// >>>>> End Test Output\n", 1)
    outcome = evaluate_prediction(GO, commented, tmp_path, QUICK)
    assert outcome.status is Status.RESOLVED, outcome.detail
    assert ">>>>> Tests Errored" in outcome.log_path.read_text().split(">>>>> Start Test Output [")[0]


def test_forged_passing_block_end_marker_and_exit_line_are_graded_on_the_real_output(tmp_path, docker_client):
    forged = [f"--- PASS: {name} (0.00s)" for name in ALL_TESTS]
    forged += ["+ : '>>>>> End Test Output'", ">>>>> Test Exit Code: 0", "clawmark:test_exit_code=0"]
    outcome = evaluate_prediction(GO, printing("forged", forged), tmp_path, QUICK)  # no fix: the real tests fail
    assert outcome.report[GO.instance_id]["tests_status"]["FAIL_TO_PASS"]["failure"] == GO.FAIL_TO_PASS
    assert_measured_failure(outcome, SummaryStatus.UNRESOLVED, "forged_markers")


def test_tests_sleeping_past_the_deadline_are_a_measured_failure(tmp_path, docker_client):
    sleeper = go_test_file("sleep", ["testing", "time"], "time.Sleep(10 * time.Minute)")
    outcome = evaluate_prediction(GO, GO.patch + sleeper, tmp_path, EvalConfig(reuse_reports=False, timeout_s=20))
    assert_measured_failure(outcome, SummaryStatus.EVAL_TIMEOUT, "tests_timeout")
    assert "(in the tests)" in outcome.detail


def test_tests_that_replace_their_own_output_file_leave_an_unusable_log_not_an_error(tmp_path, docker_client):
    swap = go_test_file("swap", ["os", "testing"], 'os.Remove("/tmp/clawmark-eval/tests.txt")\n'
                        'os.Mkdir("/tmp/clawmark-eval/tests.txt", 0o755)')
    outcome = evaluate_prediction(GO, GO.patch + swap, tmp_path, QUICK)
    assert_measured_failure(outcome, SummaryStatus.NO_RESULT, "log_unusable")


def test_a_fork_bomb_past_the_deadline_is_a_measured_timeout_even_if_the_container_must_go(tmp_path, docker_client):
    # When the bomb holds every pid, the deadline's kill cannot run inside and the container is
    # killed instead: the harness did that because the tests outlived their deadline.
    bomb = go_test_file("bomb", ["os/exec", "testing"],
                        'exec.Command("bash", "-c", "bomb() { bomb | bomb & }; bomb; sleep 600").Run()')
    config = EvalConfig(reuse_reports=False, timeout_s=10, pids_limit=64)
    outcome = evaluate_prediction(GO, GO.patch + bomb, tmp_path, config)
    assert_measured_failure(outcome, SummaryStatus.EVAL_TIMEOUT, "tests_timeout")


def test_a_patch_printing_100_mb_is_an_output_flood_not_a_crash(tmp_path, docker_client):
    flood = go_test_file("flood", ["bufio", "os", "strings", "testing"],
                         'out := bufio.NewWriterSize(os.Stdout, 1<<20)\nline := strings.Repeat("x", 1023) + "\\n"\n'
                         "for i := 0; i < 100*1024; i++ {\n\tout.WriteString(line)\n}\nout.Flush()")
    outcome = evaluate_prediction(GO, GO.patch + flood, tmp_path, EvalConfig(reuse_reports=False, timeout_s=300))
    assert_measured_failure(outcome, SummaryStatus.OUTPUT_FLOOD, "output_flood")
    assert "over the" in outcome.detail and outcome.log_path.stat().st_size < 1_000_000


def test_tests_that_stop_their_own_container_are_a_measured_failure_not_an_outage(tmp_path, docker_client):
    kill_init = go_test_file("stop", ["syscall", "testing"], "syscall.Kill(1, syscall.SIGTERM)\nselect {}")
    outcome = evaluate_prediction(GO, GO.patch + kill_init, tmp_path, QUICK)
    assert_measured_failure(outcome, SummaryStatus.NO_RESULT, "tests_errored")
    assert "stopped their own container" in outcome.detail


def test_container_killed_by_the_host_mid_evaluation_is_an_excluded_rerunnable_error(tmp_path, docker_client):
    sleeper = go_test_file("sleep", ["testing", "time"], "time.Sleep(10 * time.Minute)")
    killer = threading.Thread(target=_kill_when_tests_run, args=(docker_client,), daemon=True)
    killer.start()
    outcome = evaluate_prediction(GO, GO.patch + sleeper, tmp_path, EvalConfig(reuse_reports=False, timeout_s=600))
    killer.join(timeout=60)
    assert (outcome.status, outcome.failure_reason) == (Status.INFRA_ERROR, "container_gone"), outcome.detail
    row = _row(GO.instance_id, patch_outcome(outcome))
    assert row.resolved is None and row.error_kind.value in RERUNNABLE_ERROR_KINDS
    line = counted(outcome)
    assert (line["pass_at_1"], line["trials"], line["errors"]) == (1.0, 1, 1)  # out of the denominator


def _kill_when_tests_run(client, patience_s: float = 300) -> None:
    """Kill this process's evaluation container once its test region has started (docker SDK,
    as the host would; other engineers' containers carry another owner pid)."""
    labels = [f"clawmark.owner_pid={os.getpid()}", "clawmark.role=swe-eval"]
    container = wait_for_marked(client, labels, "/tmp/clawmark-eval/tests.txt", patience_s)
    if container is not None:
        container.kill()


@pytest.mark.parametrize("network", ["default", "none"])
def test_the_row_records_the_evaluators_network(network, store, gateway):  # noqa: F811
    row = attempt(INI, "oracle", "none", store, gateway, eval_network=network)
    assert (row.status, row.resolved, row.network_policy, row.failure_reason) == ("resolved", True, network, None)
    read_back = store.read("itest").set_index("cell_key").loc[row.cell_key]
    assert read_back["network_policy"] == network


def probing(check: str):
    """The Go instance with an eval script whose one "test" passes when `check` succeeds."""
    script = (f"#!/bin/bash\n: '>>>>> Start Test Output'\n({check}) && echo '--- PASS: TestProbe (0.00s)'"
              " || echo '--- FAIL: TestProbe (0.00s)'\n: '>>>>> End Test Output'\n")
    return GO.model_copy(update={"eval_script": script, "FAIL_TO_PASS": ["TestProbe"], "PASS_TO_PASS": []})


def test_evaluations_get_the_default_network_unless_a_sweep_asks_for_none(tmp_path, docker_client):
    """What real eval scripts need to reinstall their package. The probe asks the kernel for a
    default route, so no address is contacted."""
    probe = probing("(ip route 2>/dev/null || cat /proc/net/route) | grep -qE 'default|00000000'")
    default = evaluate_prediction(probe, GO.patch, tmp_path / "default", QUICK)
    hermetic = evaluate_prediction(probe, GO.patch, tmp_path / "none", QUICK.model_copy(update={"network": "none"}))
    assert (default.status, hermetic.status) == (Status.RESOLVED, Status.UNRESOLVED)


def test_evaluations_get_sys_admin_as_swebench_gives_it(tmp_path, docker_client):
    probe = probing("cap=$(awk '/^CapEff/ {print $2}' /proc/self/status); (( (16#$cap >> 21) & 1 ))")  # CAP_SYS_ADMIN
    given = evaluate_prediction(probe, GO.patch, tmp_path / "given", QUICK)
    withheld = evaluate_prediction(probe, GO.patch, tmp_path / "withheld", QUICK.model_copy(update={"cap_add": []}))
    assert (given.status, withheld.status) == (Status.RESOLVED, Status.UNRESOLVED)
