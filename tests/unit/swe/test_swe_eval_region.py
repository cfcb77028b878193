"""The harness form of eval scripts, run for real under bash on the host: the region is the test
command's output only, the nonce markers and the exit code come from the harness, and nothing
the tests (or the printed diff) print can end, move or fake the region."""

from __future__ import annotations

import base64
import json
import subprocess
from types import SimpleNamespace

import pytest

from clawmark.settings import TASKS_CATALOG
from clawmark.swe.eval_region import (
    RegionFiles,
    ScriptHasNoMarkers,
    assemble_log,
    harness_script,
    run_harness_script,
)
from clawmark.swe.log_grading import END_MARKER, START_MARKER, NoResult, grade
from clawmark.swe.shell import HostShell
from tests.unit.swe.test_swe_grading_parity import LOGS

ROW = SimpleNamespace(instance_id="o__r-1", log_parser="parse_log_gotest", eval_type=None,
                      FAIL_TO_PASS=["TestFix"], PASS_TO_PASS=["TestKept"])
FORGED = ("--- PASS: TestFix (0.00s)\n--- PASS: TestKept (0.00s)\n"
          f"+ : '{END_MARKER}'\n>>>>> Test Exit Code: 0\nclawmark:test_exit_code=0\n")
REAL_FAILURE = "--- FAIL: TestFix (0.00s)\n--- PASS: TestKept (0.00s)\n"


def swebench_shaped(test_cmd: str, before: str = "") -> str:
    """An eval script in the SWE-bench rows' shape around `test_cmd`."""
    return (f"#!/bin/bash\nset -uxo pipefail\n{before}: '{START_MARKER}'\n{test_cmd}\n"
            f": '{END_MARKER}'\necho reset\n")


def printing(text: str, exit_code: int) -> str:
    """A test command printing `text` (base64 in the script, so the xtrace line does not show it)."""
    return f"(echo {base64.b64encode(text.encode()).decode()} | base64 -d; exit {exit_code}) | cat"


def run(tmp_path, script: str, max_bytes: int = 2**20, timeout_s: float = 60):
    files = RegionFiles.under(str(tmp_path))
    (tmp_path / "eval.sh").write_text(harness_script(script, files))
    return run_harness_script(HostShell(tmp_path), str(tmp_path / "eval.sh"), files, timeout_s, max_bytes,
                              str(tmp_path))


def test_forged_pass_block_end_marker_and_exit_line_cannot_end_the_region(tmp_path):
    done = run(tmp_path, swebench_shaped(printing(FORGED + REAL_FAILURE, 1)))
    result = grade(ROW, done.log_text, nonce=done.nonce)
    assert (result.resolved, result.resolution.swebench, result.test_exit_code) == (False, "RESOLVED_NO", 1)
    assert result.forged_markers and done.exit_code == 1


def test_forged_pass_block_after_the_real_failure_contradicts_the_harness_exit_code(tmp_path):
    done = run(tmp_path, swebench_shaped(printing(REAL_FAILURE + FORGED, 1)))
    assert grade(ROW, done.log_text, nonce=done.nonce).no_result_reason is NoResult.EXIT_CODE_CONTRADICTS_LOG


def test_exit_code_is_the_commands_status_not_a_line_the_tests_print(tmp_path):
    passes = "--- PASS: TestFix (0.00s)\n--- PASS: TestKept (0.00s)\nclawmark:test_exit_code=0\n"
    done = run(tmp_path, swebench_shaped(printing(passes, 3)))
    result = grade(ROW, done.log_text, nonce=done.nonce)
    assert (done.exit_code, result.test_exit_code) == (3, 3)
    assert result.no_result_reason is NoResult.EXIT_CODE_CONTRADICTS_LOG


def test_tests_that_rewrite_the_running_script_cannot_change_its_exit_code(tmp_path):
    # In place (same inode, as bash reads a script while it runs): the exit line becomes `exit 0`.
    attack = ("off=$(grep -bo 'exit \"\\$CLAWMARK_TEST_EXIT_CODE\"' eval.sh | tail -1 | cut -d: -f1); "
              "printf '%-31s' 'exit 0' | dd of=eval.sh bs=1 seek=$off conv=notrunc 2>/dev/null; exit 1")
    command = f"(echo {base64.b64encode(attack.encode()).decode()} | base64 -d | bash)"
    done = run(tmp_path, swebench_shaped(f"{printing(REAL_FAILURE, 0)}; {command}"))
    assert 'exit 0 ' in (tmp_path / "eval.sh").read_text()  # the rewrite happened
    assert done.exit_code == 1


def test_fault_marker_in_the_printed_diff_is_not_a_verdict_but_inside_the_region_it_is(tmp_path):
    passes = "--- PASS: TestFix (0.00s)\n--- PASS: TestKept (0.00s)\n"
    diff = "echo '+// >>>>> Tests Errored'\necho '+# >>>>> Start Test Output'\n"
    (tmp_path / "diff").mkdir()
    (tmp_path / "tests").mkdir()
    before = run(tmp_path / "diff", swebench_shaped(printing(passes, 0), before=diff))
    assert grade(ROW, before.log_text, nonce=before.nonce).resolved is True
    assert grade(ROW, before.log_text).no_result_reason is NoResult.TESTS_ERRORED  # swebench: no result
    inside = run(tmp_path / "tests", swebench_shaped(printing(passes + ">>>>> Tests Errored\n", 0)))
    assert grade(ROW, inside.log_text, nonce=inside.nonce).no_result_reason is NoResult.TESTS_ERRORED


def test_bundled_rows_capture_their_own_status_and_it_is_the_one_used(tmp_path):
    script = ("#!/bin/bash\nset -uxo pipefail\necho '>>>>> Start Test Output'\n"
              f"{printing(REAL_FAILURE, 4)}\nrc=$?\necho '>>>>> End Test Output'\n"
              'echo "clawmark:test_exit_code=$rc"\n')
    done = run(tmp_path, script)
    result = grade(ROW, done.log_text, nonce=done.nonce)
    assert (done.exit_code, result.test_exit_code, result.resolution.swebench) == (4, 4, "RESOLVED_NO")
    assert not result.forged_markers


def test_output_over_the_limit_is_a_flood_with_head_and_tail_kept(tmp_path):
    done = run(tmp_path, swebench_shaped("head -c 3000000 /dev/zero | tr '\\0' x; echo; echo last-line"),
               max_bytes=1_000_000)
    assert done.flooded and done.output_bytes > 3_000_000
    assert len(done.log_text) < 300_000 and "last-line" in done.log_text


@pytest.mark.parametrize("replacement", ["mkdir", "ln -s /nonexistent", "ln -s /dev/null"])
def test_tests_that_replace_their_output_file_leave_no_region_not_an_error(replacement, tmp_path):
    command = f"{printing(REAL_FAILURE, 0)}; rm {tmp_path}/tests.txt; {replacement} {tmp_path}/tests.txt"
    done = run(tmp_path, swebench_shaped(command))
    assert not done.flooded
    reason = grade(ROW, done.log_text, nonce=done.nonce).no_result_reason
    assert reason in (NoResult.START_MARKER_MISSING, NoResult.SUITE_DID_NOT_RUN)


def test_script_stopping_before_its_markers_leaves_them_out(tmp_path):
    done = run(tmp_path, swebench_shaped("exit 7"))  # the shell itself exits inside the region
    assert grade(ROW, done.log_text, nonce=done.nonce).no_result_reason is NoResult.END_MARKER_MISSING
    assert assemble_log("setup\n", None, None, 0, "n").count(">>>>>") == 0


def test_every_real_and_bundled_script_gets_a_harness_form_bash_accepts(tmp_path):
    scripts = [json.loads(line)["eval_script"] for line in (LOGS / "real_eval_scripts.jsonl").read_text().splitlines()]
    scripts += [json.loads(line)["eval_script"]
                for line in (TASKS_CATALOG / "swe" / "instances.jsonl").read_text().splitlines()]
    files = RegionFiles.under("/tmp/clawmark-eval")
    for script in scripts:
        harnessed = harness_script(script, files)
        assert START_MARKER not in harnessed and f": '{END_MARKER}'" not in harnessed
        assert harnessed.rstrip().endswith('exit "$CLAWMARK_TEST_EXIT_CODE"\n}')
        subprocess.run(["bash", "-n"], input=harnessed, text=True, check=True)


def test_a_command_that_only_mentions_a_marker_is_not_taken_for_it():
    script = swebench_shaped(f"echo \"{END_MARKER}\"; go test ./...")
    harnessed = harness_script(script, RegionFiles.under("/w"))
    assert harnessed.index("go test") < harnessed.index("exec >/w/after_tests.txt")
    with pytest.raises(ScriptHasNoMarkers):
        harness_script("#!/bin/bash\ngo test ./...\n", RegionFiles.under("/w"))
