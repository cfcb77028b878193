"""Seeded random logs (lines drawn from every fixture log, any parser, random test lists and
exit codes) graded by us and by swebench. They must agree except in the two documented
differences: a region that parses to nothing is "no result" for us (swebench re-parses the
whole log), and swebench's non-status words (`ERROR: x` -> 'ERROR:') are not results for us."""

from __future__ import annotations

import random

import pytest

from clawmark.catalog import SweInstance
from clawmark.swe.log_grading import END_MARKER, START_MARKER, NoResult, grade
from clawmark.swe.parsers import known_parsers, parse_log
from tests.unit.swe.test_swe_grading_parity import (LOGS, TEST_STATUS_WORDS, make_row, our_grade, swebench_grade,
                                                swebench_parse)

CASES = 300
LINES = [line for path in sorted(LOGS.rglob("*.log")) for line in path.read_text().split("\n")
         if ">>>>>" not in line and "clawmark:test_exit_code" not in line]
OTHER_NAMES = ["TestA", "tests/a.py::test_x", "test_x (m.C)", "a > b", "x"]


def random_case(rng: random.Random, outside_lines: int) -> tuple[dict, str, str]:
    """(row, log, marked region) with test lists drawn from what the region parses to."""
    parser = rng.choice(known_parsers())
    region = "\n".join(rng.sample(LINES, rng.randint(0, 12)))
    row = make_row(parser, [], [])
    names = [*parse_log(parser, region, row["instance_id"]), *OTHER_NAMES]
    row["FAIL_TO_PASS"] = rng.sample(names, min(len(names), rng.randint(0, 3)))
    row["PASS_TO_PASS"] = rng.sample(names, min(len(names), rng.randint(0, 3)))
    log = "\n".join([*rng.sample(LINES, outside_lines), f"+ : '{START_MARKER}'", region, f"+ : '{END_MARKER}'"])
    if rng.random() < 0.5:
        log += f"\nclawmark:test_exit_code={rng.choice([0, 1, 2])}"
    return row, log, region


def has_non_status_words(row: dict, region: str) -> bool:
    return any(status not in TEST_STATUS_WORDS for status in swebench_parse(row, region).values())


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_random_logs_inside_the_markers_grade_like_swebench(seed, tmp_path):
    rng, compared = random.Random(seed), 0
    for _ in range(CASES):
        row, log, region = random_case(rng, outside_lines=0)
        if has_non_status_words(row, region):
            continue  # documented difference; pinned in test_swe_grading_parity
        assert our_grade(row, log) == swebench_grade(row, log, tmp_path), (row, log)
        compared += 1
    assert compared >= CASES * 0.9


def test_random_logs_with_text_outside_the_markers_differ_only_by_the_region_rule(tmp_path):
    rng, differing = random.Random(21), 0
    for _ in range(CASES):
        row, log, region = random_case(rng, outside_lines=3)
        if has_non_status_words(row, region) or our_grade(row, log) == swebench_grade(row, log, tmp_path):
            continue
        differing += 1
        assert not parse_log(row["log_parser"], region, row["instance_id"])
        assert grade(SweInstance.model_validate(row), log).no_result_reason is NoResult.SUITE_DID_NOT_RUN
    assert 0 < differing < CASES * 0.2
