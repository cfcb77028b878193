"""`clawmark catalog validate/list/suites`: exit codes and one-line problems, never a traceback."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from clawmark.cli.main import app
from clawmark.settings import PROJECT_ROOT, TASKS_CATALOG
from tests.unit.catalog.test_catalog_swe import ROW
from tests.unit.catalog.test_catalog_tasks import make_task

runner = CliRunner()
SHARED = Path("/work/shared/datasets/swebench")


def test_validate_bundled_catalog_and_shared_datasets_exits_zero() -> None:
    files = [SHARED / "SWE-bench_Verified.test.parquet", SHARED / "claw_swe_bench_full350.jsonl",
             SHARED / "claw_verified_mini_50.txt", SHARED / "claw_swe_bench_full350_languages.tsv"]
    result = runner.invoke(app, ["catalog", "validate", str(TASKS_CATALOG), *map(str, files)])
    assert result.exit_code == 0, result.output
    bundled = sum(1 for f in (TASKS_CATALOG / "swe").glob("*.jsonl") for line in f.read_text().splitlines() if line)
    assert "14 closed-loop tasks" in result.output and f"{850 + bundled} instances" in result.output
    suites = int(re.search(r"(\d+) suites", result.output).group(1))
    assert suites == len(list((TASKS_CATALOG / "suites").glob("*.yaml"))) >= 2


def test_validate_reports_every_broken_package_one_line_each(tmp_path: Path) -> None:
    make_task(tmp_path / "tree", spec={"task_id": "good"})
    make_task(tmp_path / "tree", spec={"task_id": "leaky", "sources": ["../../etc/passwd"]})
    make_task(tmp_path / "tree", spec={"task_id": "secret", "privacy": {"K": "v"}})
    bad_jsonl = tmp_path / "rows.jsonl"
    bad_jsonl.write_text(json.dumps(ROW) + "\n{nope\n")
    result = runner.invoke(app, ["catalog", "validate", str(tmp_path / "tree"), str(bad_jsonl)])
    assert result.exit_code == 1
    lines = [l for l in result.stdout.splitlines() if l.strip() and not l.startswith("ok  ")]
    assert len(lines) == 3, result.output
    assert [l.split()[1] for l in result.stdout.splitlines() if l.startswith("ok  ")] == ["good"]
    leaky = (tmp_path / "tree/leaky/task.yaml").resolve()
    assert f"{leaky}: sources[0]: expected a path inside the task package" in lines[0]
    assert lines[1].startswith(f"{(tmp_path / 'tree/secret/task.yaml').resolve()}: privacy: expected ")
    assert lines[2].startswith(f"{bad_jsonl}:2: <line>: expected ")
    assert "Traceback" not in result.output


def test_validate_single_package_uniclaw_yaml_and_missing_path(tmp_path: Path) -> None:
    yaml_file = make_task(tmp_path / "uc", "uniclaw")
    ok = runner.invoke(app, ["catalog", "validate", str(yaml_file), str(make_task(tmp_path / "f"))])
    assert ok.exit_code == 0 and "2 closed-loop tasks" in ok.output
    missing = runner.invoke(app, ["catalog", "validate", str(tmp_path / "absent")])
    assert missing.exit_code == 1
    assert missing.stdout.strip() == f"{tmp_path / 'absent'}: <path>: expected an existing file or folder"


def test_list_suite_and_track_filter() -> None:
    result = runner.invoke(app, ["catalog", "list", "--suite", "smoke", "--catalog", str(TASKS_CATALOG)])
    assert result.exit_code == 0
    assert "en_101_sales_total" in result.output and "zh_202_error_code" not in result.output
    closed = runner.invoke(app, ["catalog", "list", "--track", "closed_loop", "--catalog", str(TASKS_CATALOG)])
    assert closed.exit_code == 0 and "14 task(s)" in closed.output
    assert runner.invoke(app, ["catalog", "list", "--track", "bogus"]).exit_code == 2


def test_list_unknown_suite_is_one_line_and_exit_one() -> None:
    result = runner.invoke(app, ["catalog", "list", "--suite", "nope", "--catalog", str(TASKS_CATALOG)])
    assert result.exit_code == 1 and "nope.yaml: <file>: expected" in result.output
    assert "Traceback" not in result.output


def test_suites_command_lists_bundled_suites() -> None:
    result = runner.invoke(app, ["catalog", "suites", "--catalog", str(TASKS_CATALOG)])
    assert result.exit_code == 0 and "smoke" in result.output and "closed-loop-all" in result.output


def test_real_process_exit_codes(tmp_path: Path) -> None:
    """The installed entry point, as CI and users call it."""
    exe = Path(sys.executable).with_name("clawmark")
    env = {**os.environ, "COLUMNS": "200"}
    good = subprocess.run([exe, "catalog", "validate", str(TASKS_CATALOG / "closed_loop")],
                          capture_output=True, text=True, env=env, cwd=PROJECT_ROOT, timeout=120)
    assert good.returncode == 0 and good.stdout.splitlines()[-1].startswith("valid: 14 closed-loop tasks")
    assert sum(line.startswith("ok  ") for line in good.stdout.splitlines()) == 14
    bad = make_task(tmp_path, spec={"skills": ["../../etc/passwd"]})
    broken = subprocess.run([exe, "catalog", "validate", str(bad)], capture_output=True, text=True,
                            env=env, cwd=PROJECT_ROOT, timeout=120)
    assert broken.returncode == 1 and ": skills[0]: expected " in broken.stdout
    assert "Traceback" not in broken.stderr


def test_unknown_task_keys_are_warnings_not_failures(tmp_path: Path) -> None:
    package = make_task(tmp_path, spec={"sucess_threshold": 0.9, "sources": ["gone.csv"]})
    result = runner.invoke(app, ["catalog", "validate", str(package)])
    assert result.exit_code == 0
    assert "missing content: sources/gone.csv: declared in `sources:` but not in the package" in result.stderr
    assert f"warning: {(package / 'task.yaml').resolve()}: sucess_threshold: unknown task field" in result.stderr


def test_validate_refuses_a_non_boolean_gui_in_one_line_and_knows_the_field(tmp_path: Path) -> None:
    bad = make_task(tmp_path / "tree", spec={"task_id": "bad_gui", "gui": "yes"})
    good = make_task(tmp_path / "tree", spec={"task_id": "good_gui", "gui": True})
    result = runner.invoke(app, ["catalog", "validate", str(tmp_path / "tree")])
    assert result.exit_code == 1
    problems = [l for l in result.stdout.splitlines() if l.strip() and not l.startswith("ok  ")]
    assert problems == [f"{(bad / 'task.yaml').resolve()}: gui: expected true or false: "
                        "does the task need the desktop? (got 'yes')"]
    assert [l.split()[1] for l in result.stdout.splitlines() if l.startswith("ok  ")] == ["good_gui"]
    assert f"{(good / 'task.yaml').resolve()}: gui: unknown task field" not in result.stderr
