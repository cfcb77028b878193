"""references/checks.yaml: the check syntax, its one-line errors, and which checkpoints it covers."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from clawmark.catalog import CatalogError, load_task
from tests.unit.catalog.test_catalog_tasks import make_task

RULE = """# Rule
## 5. Checkpoint Rubric
| ID | What matters | Weight |
|---|---|---|
| CP1 | summary.json has total and currency | 0.3 |
| CP2 | total is right | 0.5 |
| CP3 | report explains it | 0.2 |
## 6. Scoring Policy
- Cap at 0.3 if summary.json is missing.
"""
CHECKS = {
    "checks": [
        {"id": "summary_exists", "checkpoint": "CP1", "kind": "file_exists", "path": "results/summary.json"},
        {"id": "summary_keys", "checkpoint": "CP1", "kind": "json_keys", "path": "results/summary.json",
         "keys": ["total", "currency"]},
        {"id": "total", "checkpoint": "CP2", "kind": "equals_reference", "path": "results/summary.json",
         "pointer": "total", "reference": "references/answer.json", "reference_pointer": "total"},
        {"id": "mentions", "checkpoint": "CP3", "kind": "regex", "path": "results/report.md", "pattern": r"\b1234\.5\b"},
        {"id": "rows", "kind": "csv_columns", "path": "results/rows.csv", "columns": ["date", "amount"]},
        {"id": "near", "kind": "number", "path": "results/summary.json", "pointer": "total", "value": 1234.5,
         "tolerance": 0.01},
        {"id": "script", "kind": "script", "script": "references/check_total.py", "timeout_s": 5},
    ],
    "caps": [{"check": "summary_exists", "max_score": 0.3}],
    "advisory": ["CP3"],
}
FILES = {"references/eval_rule.md": RULE, "references/answer.json": '{"total": 1234.5}',
         "references/check_total.py": "print('ok')\n"}


def with_checks(tmp_path: Path, checks: dict | str) -> Path:
    text = checks if isinstance(checks, str) else yaml.safe_dump(checks)
    return make_task(tmp_path, files={**FILES, "references/checks.yaml": text})


def error_of(tmp_path: Path, checks: dict | str) -> CatalogError:
    package = with_checks(tmp_path, checks)
    with pytest.raises(CatalogError) as err:
        load_task(package)
    assert err.value.file == str((package / "references/checks.yaml").resolve())
    assert "\n" not in str(err.value)
    return err.value


def test_checks_load_with_the_task_and_say_what_is_covered(tmp_path: Path) -> None:
    task = load_task(with_checks(tmp_path, CHECKS))
    assert [c.id for c in task.checks.checks] == [c["id"] for c in CHECKS["checks"]]
    assert task.checks.check("near").tolerance == 0.01 and task.checks.caps[0].max_score == 0.3
    covered = task.checks.covered(task.rubric)
    assert [(c.id, c.weight, c.checks) for c in covered] == [
        ("CP1", 0.3, ["summary_exists", "summary_keys"]), ("CP2", 0.5, ["total"])]  # CP3 is advisory
    assert task.checks.covered_weight(task.rubric) == pytest.approx(0.8)
    assert task.rubric.checkpoints[0].text == "summary.json has total and currency"
    assert task.rubric.caps[0].text == "Cap at 0.3 if summary.json is missing."


def test_without_a_checks_file_the_task_has_none(tmp_path: Path) -> None:
    assert load_task(make_task(tmp_path, files=FILES)).checks is None


def test_unknown_checkpoint_is_one_line_naming_file_field_and_ids(tmp_path: Path) -> None:
    broken = {"checks": [{**CHECKS["checks"][0], "checkpoint": "CP9"}]}
    error = error_of(tmp_path, broken)
    assert error.field == "checks.0.checkpoint"
    assert error.expected == "a checkpoint id of the rubric (CP1, CP2, CP3) (got 'CP9')"


@pytest.mark.parametrize("change, field, expected", [
    ({"kind": "json_keys", "keys": []}, "checks.0", "keys for a json_keys check"),
    ({"kind": "regex", "pattern": "(unclosed"}, "checks.0.pattern", "a valid regular expression"),
    ({"kind": "number"}, "checks.0", "value for a number check"),
    ({"path": "../etc/passwd"}, "checks.0.path", "a relative path without '..'"),
    ({"path": "/etc/passwd"}, "checks.0.path", "a relative path without '..'"),
    ({"kind": "equals_reference", "reference": "sources/answer.json"}, "checks.0.reference", "under references/"),
    ({"kind": "fuzzy"}, "checks.0.kind", "'file_exists'"),
    ({"id": "has space"}, "checks.0.id", "string should match pattern"),
    ({"pointer": "a..b"}, "checks.0.pointer", "a key path like a.b.0"),
    ({"colour": "red"}, "checks.0.colour", "no such field"),
])
def test_malformed_check(tmp_path: Path, change: dict, field: str, expected: str) -> None:
    error = error_of(tmp_path, {"checks": [{**CHECKS["checks"][0], **change}]})
    assert error.field == field and expected in error.expected


def test_file_level_problems(tmp_path: Path) -> None:
    twice = {"checks": [CHECKS["checks"][0], CHECKS["checks"][0]]}
    assert "unique check ids (got 'summary_exists' twice)" in error_of(tmp_path / "a", twice).expected
    cap = {"checks": [CHECKS["checks"][0]], "caps": [{"check": "nope", "max_score": 0.2}]}
    assert "caps naming a check of this file (got 'nope')" in error_of(tmp_path / "b", cap).expected
    high = {"checks": [CHECKS["checks"][0]], "caps": [{"check": "summary_exists", "max_score": 1.5}]}
    assert error_of(tmp_path / "c", high).field == "caps.0.max_score"
    assert error_of(tmp_path / "d", "checks: [\n").field == "<yaml>"
    assert error_of(tmp_path / "e", "- just a list\n").field == "<root>"
    gone = {"checks": [{**CHECKS["checks"][6], "script": "references/missing.py"}]}
    assert error_of(tmp_path / "f", gone).field == "checks.0.script"
    advisory = {"checks": [CHECKS["checks"][0]], "advisory": ["CP7"]}
    assert error_of(tmp_path / "g", advisory).field == "advisory.0"


def test_checks_against_a_rubric_without_checkpoints(tmp_path: Path) -> None:
    package = make_task(tmp_path, files={"references/eval_rule.md": "# R\n## A\nprose only\n## B\ncap at 0.5 if x\n",
                                         "references/checks.yaml": yaml.safe_dump({"checks": [
                                             {"id": "x", "kind": "file_exists", "path": "results/x"}]})})
    task = load_task(package)
    assert task.checks.covered(task.rubric) == []  # checks without checkpoints are evidence only
    bad = yaml.safe_dump({"checks": [{"id": "x", "checkpoint": "C1", "kind": "file_exists", "path": "results/x"}]})
    (package / "references/checks.yaml").write_text(bad)
    with pytest.raises(CatalogError, match="none: the rubric has no extractable checkpoints"):
        load_task(package)
