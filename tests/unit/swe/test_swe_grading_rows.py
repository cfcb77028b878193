"""Grading parity with swebench on real SWE-bench rows (one per log_parser in Verified and
Multilingual, copied to fixtures/swe_logs/real_instances.jsonl): for each row a log in its
runner's format whose test names are the row's F2P/P2P, in pass / fail / partial / broken
P2P / missing / skipped variants."""

from __future__ import annotations

import json
from typing import Callable
from xml.sax.saxutils import quoteattr

import pytest

from clawmark.swe.log_grading import END_MARKER, START_MARKER
from tests.unit.swe.test_swe_grading_parity import LOGS, assert_parity

ROWS = [json.loads(line) for line in (LOGS / "real_instances.jsonl").read_text().splitlines() if line]
P, F, S = "PASSED", "FAILED", "SKIPPED"
Results = list[tuple[str, str]]


def one_per_line(formats: dict[str, str]) -> Callable[[Results], str]:
    """A renderer from {status: line template with {name} and {n}}; statuses absent are not printed."""
    def render(results: Results) -> str:
        return "\n".join(formats[status].format(name=name, n=n)
                         for n, (name, status) in enumerate(results, 1) if status in formats)
    return render


def grouped(header: str, line: dict[str, str], separator: str = " > ") -> Callable[[Results], str]:
    """Suites printed once as headers, then their tests (karma, phpunit)."""
    def render(results: Results) -> str:
        out, current = [], None
        for name, status in results:
            suite, _, test = name.rpartition(separator)
            if suite != current:
                out.append(header.format(suite=suite))
                current = suite
            if status in line:
                out.append(line[status].format(test=test))
        return "\n".join(out)
    return render


def maven(results: Results) -> str:
    verdict = {P: "[INFO] BUILD SUCCESS", F: "[INFO] BUILD FAILURE"}
    return "\n".join(f"+ mvn test -B -Dtest={name}\n[INFO] Tests run: 1\n{verdict[status]}"
                     for name, status in results if status in verdict)


def doctest(results: Results) -> str:
    cases = "".join(
        f'<TestCase name={quoteattr(name.split(" > ")[0])}><SubCase name={quoteattr(name.split(" > ")[1])}>'
        f'<Expression success="{str(status == P).lower()}"/></SubCase></TestCase>'
        for name, status in results if status in (P, F))
    return f'<?xml version="1.0"?>\n<doctest binary="test">{cases}</doctest>'


def karma(results: Results) -> str:
    body = grouped("  {suite}", {P: "    ✔ {test}", F: "    ✖ {test}"})(results)
    return f"INFO [launcher]: Starting browser ChromeHeadless\n{body}\nSUMMARY:\n✔ done"


PYTEST = one_per_line({P: "PASSED {name}", F: "FAILED {name} - AssertionError: boom",
                       S: "SKIPPED [1] tests/x.py:3: skipped"})
RENDER: dict[str, Callable[[Results], str]] = {
    "parse_log_gotest": one_per_line({P: "--- PASS: {name} (0.00s)", F: "--- FAIL: {name} (0.01s)",
                                      S: "--- SKIP: {name} (0.00s)"}),
    "parse_log_cargo": one_per_line({P: "test {name} ... ok", F: "test {name} ... FAILED",
                                     S: "test {name} ... ignored"}),
    "parse_log_jest": one_per_line({P: "    ✓ {name} (3 ms)", F: "    ✕ {name} (12 ms)",
                                    S: "    ○ skipped {name}"}),
    "parse_log_vitest": one_per_line({P: " ✓ {name} 2ms", F: " × {name} 5ms", S: " ↓ {name} [skipped]"}),
    "parse_log_tap": one_per_line({P: "ok {n} {name}", F: "not ok {n} {name}", S: "ok {n} {name} # SKIP"}),
    "parse_log_immutable_js": one_per_line({P: "[PASSED] {name}", F: "[FAILED] {name}"}),
    "parse_log_karma": karma,
    "parse_log_maven": maven,
    "parse_log_ant": one_per_line({P: "    [junit] [PASS] {name}", F: "    [junit] [FAIL] {name}"}),
    "parse_log_gradle_custom": one_per_line({P: "{name} PASSED", F: "{name} FAILED", S: "{name} SKIPPED"}),
    "parse_log_phpunit": grouped("{suite} (Tests\\{suite}Test)",
                                 {P: " ✔ {test}", F: " ✘ {test}", S: " ↩ {test}"}),
    "parse_log_rspec_transformed_json": one_per_line({P: "{name} - passed", F: "{name} - failed",
                                                      S: "{name} - pending"}),
    "parse_log_ruby_unit": one_per_line({P: "  {name}:\t\t\t.: (0.001)", F: "  {name}:\t\t\tF",
                                         S: "  {name}:\t\t\tO"}),
    "parse_log_jekyll": one_per_line({P: "{name} .......", F: "{name} ...F"}),  # 8761 runs cucumber
    "parse_log_redis": one_per_line({P: "[ok]: {name} (1 ms)", F: "[err]: {name} in tests/unit/x.tcl",
                                     S: "[skip]: {name}"}),
    "parse_log_jq": one_per_line({P: "PASS: {name}", F: "FAIL: {name}", S: "SKIP: {name}"}),
    "parse_log_googletest": one_per_line({P: "15: [       OK ] {name} (0 ms)",
                                          F: "15: [  FAILED  ] {name} (1 ms)"}),
    "parse_log_doctest": doctest,
    "parse_log_micropython_test": one_per_line({P: "pass  {name}", F: "FAIL  {name}", S: "skip  {name}"}),
    "parse_log_django": one_per_line({P: "{name} ... ok", F: "{name} ... FAIL", S: "{name} ... skipped 'no db'"}),
    "parse_log_sympy": one_per_line({P: "{name} ok", F: "{name} F"}),
    **dict.fromkeys(["parse_log_astropy", "parse_log_flask", "parse_log_matplotlib", "parse_log_pylint",
                     "parse_log_pytest", "parse_log_requests", "parse_log_scikit", "parse_log_seaborn",
                     "parse_log_sphinx", "parse_log_xarray"], PYTEST),
}


def variants(f2p: list[str], p2p: list[str]) -> dict[str, tuple[Results, int]]:
    """Variant name -> (results in run order, test exit code)."""
    keep = [(name, P) for name in p2p]
    found = {
        "pass": ([(name, P) for name in f2p] + keep, 0),
        "fail": ([(name, F) for name in f2p] + keep, 1),
        "missing": (keep, 0),
        "skipped": ([(name, S) for name in f2p] + [(name, S) for name in p2p], 0),
    }
    if len(f2p) >= 2:
        found["partial"] = ([(f2p[0], P)] + [(name, F) for name in f2p[1:]] + keep, 1)
    if p2p:
        found["p2p_broken"] = ([(name, P) for name in f2p] + [(p2p[0], F)] + keep[1:], 1)
    return found


def wrap(body: str, exit_code: int) -> str:
    return (f"+ git apply -v -\nApplied patch tests cleanly.\n+ : '{START_MARKER}'\n{body}\n"
            f"+ : '{END_MARKER}'\nclawmark:test_exit_code={exit_code}\n+ git checkout abc123 tests\n")


CASES = [(row, name, results, code) for row in ROWS
         for name, (results, code) in variants(row["FAIL_TO_PASS"], row["PASS_TO_PASS"]).items()]


@pytest.mark.parametrize(("row", "variant", "results", "exit_code"), CASES,
                         ids=[f"{case[0]['instance_id']}-{case[1]}" for case in CASES])
def test_real_row_grades_like_swebench(row, variant, results, exit_code, tmp_path):
    ours = assert_parity(row, wrap(RENDER[row["log_parser"]](results), exit_code), tmp_path)
    if variant == "pass":
        assert ours is not None and ours[1] == "RESOLVED_FULL", "the gold-like log must resolve"
    if variant in ("fail", "p2p_broken", "missing"):
        assert ours is None or ours[1] == "RESOLVED_NO"


def test_rows_cover_every_log_parser_of_verified_and_multilingual():
    assert len({row["log_parser"] for row in ROWS}) == 31
    assert {row["log_parser"] for row in ROWS} <= set(RENDER)
