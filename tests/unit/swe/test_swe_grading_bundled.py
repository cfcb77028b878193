"""Grading parity with swebench on REAL logs of clawmark's bundled patch suite
(tasks_catalog/swe/instances.jsonl): each row's own eval_script run at base (+ test_patch)
and at base + gold patch, output saved in fixtures/swe_logs/bundled/. Base must be RESOLVED_NO,
gold RESOLVED_FULL, both exactly as swebench grades them; forged logs give no result."""

from __future__ import annotations

import re

import pytest

from clawmark.catalog import load_instances
from clawmark.settings import TASKS_CATALOG
from clawmark.swe.log_grading import NoResult, grade
from tests.unit.swe.test_swe_grading_parity import LOGS, assert_parity

INSTANCES = {row.instance_id: row for row in load_instances(TASKS_CATALOG / "swe" / "instances.jsonl")}
BUNDLED_LOGS = LOGS / "bundled"  # regenerate with: .venv/bin/python tests/fixtures/swe_logs/bundled/regenerate.py
LOGGED = sorted({path.name.rsplit(".", 2)[0] for path in BUNDLED_LOGS.glob("*.log")})
# a failing test line of each bundled runner, and the passing line it forges
FORGERIES = [(r"--- FAIL: (\S+) ", r"--- PASS: \1 "), (r"test (\S+) \.\.\. FAILED", r"test \1 ... ok"),
             (r"^not ok (\d+)", r"ok \1"), (r"^FAILED (\S+)", r"PASSED \1")]


def row_of(instance_id: str) -> dict:
    return INSTANCES[instance_id].model_dump(mode="json")


def log_of(instance_id: str, variant: str) -> str:
    return (BUNDLED_LOGS / f"{instance_id}.{variant}.log").read_text()


@pytest.mark.parametrize(("variant", "expected"), [("base", "RESOLVED_NO"), ("gold", "RESOLVED_FULL")])
@pytest.mark.parametrize("instance_id", LOGGED)
def test_bundled_log_grades_like_swebench(instance_id, variant, expected, tmp_path):
    graded = assert_parity(row_of(instance_id), log_of(instance_id, variant), tmp_path)
    assert graded is not None and graded[1] == expected
    if variant == "base":
        assert graded[0]["FAIL_TO_PASS"]["failure"] == INSTANCES[instance_id].FAIL_TO_PASS
        assert graded[0]["PASS_TO_PASS"]["failure"] == []


@pytest.mark.parametrize("instance_id", LOGGED)
def test_forged_passes_with_the_real_nonzero_exit_code_give_no_result(instance_id, tmp_path):
    forged = log_of(instance_id, "base")
    for failing, passing in FORGERIES:
        forged = re.sub(failing, passing, forged, flags=re.M)
    assert forged != log_of(instance_id, "base")
    assert grade(INSTANCES[instance_id], forged).no_result_reason is NoResult.EXIT_CODE_CONTRADICTS_LOG
    assert assert_parity(row_of(instance_id), forged, tmp_path) is None


def test_saved_logs_belong_to_bundled_instances_and_come_in_pairs():
    assert len(LOGGED) >= 4
    for instance_id in LOGGED:
        assert instance_id in INSTANCES
        assert log_of(instance_id, "base") and log_of(instance_id, "gold")
