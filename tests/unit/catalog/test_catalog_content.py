"""Missing content (Git LFS pointers, files that are not what their names say): named per file by
`catalog validate`, and refused by `clawmark run` before anything is provisioned."""

from __future__ import annotations

import json
import math
from pathlib import Path

from typer.testing import CliRunner

from clawmark.catalog import load_task
from clawmark.catalog.content import missing_content
from clawmark.cli.main import app
from clawmark.results import ERROR_STATUSES, ResultStore
from tests.unit.catalog.test_catalog_tasks import make_task

POINTER = ("version https://git-lfs.github.com/spec/v1\n"
           "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")


def _lfs_task(root: Path, task_id: str = "lfs_task") -> Path:
    return make_task(root, spec={"task_id": task_id, "sources": ["sources/data.txt", "paper.pdf"]},
                     files={"sources/paper.pdf": POINTER})


def test_each_kind_of_missing_content_is_named_with_its_fix(tmp_path: Path) -> None:
    package = make_task(tmp_path, spec={"sources": ["sources/data.txt", "gone.csv", "https://x.org/a.csv"]}, files={
        "sources/paper.pdf": POINTER, "sources/scan.png": "not a png", "skills/lookup/model.bin": POINTER,
        "references/shot.jpg": "", "sources/real.pdf": "%PDF-1.7\n...", "references/eval_rule.md": "  \n"})
    problems = {p.path: p for p in missing_content(load_task(package))}
    assert sorted(problems) == ["references/eval_rule.md", "references/shot.jpg", "skills/lookup/model.bin",
                                "sources/gone.csv", "sources/paper.pdf", "sources/scan.png"]
    assert problems["sources/paper.pdf"].problem.startswith("a Git LFS pointer (")
    assert problems["sources/paper.pdf"].fix.startswith("git lfs pull")
    assert problems["sources/scan.png"].problem.startswith("not a PNG image (its first bytes are b'not a png'")
    assert problems["references/shot.jpg"].problem == "empty, not a JPEG image"
    assert problems["references/eval_rule.md"].problem.startswith("empty")
    assert problems["sources/gone.csv"].problem == "declared in `sources:` but not in the package"
    assert missing_content(load_task(make_task(tmp_path / "whole"))) == []  # a whole package: nothing


def test_validate_warns_per_file_and_strict_makes_it_an_error(tmp_path: Path) -> None:
    task = _lfs_task(tmp_path)
    runner = CliRunner()
    lenient = runner.invoke(app, ["catalog", "validate", str(task)])
    assert lenient.exit_code == 0, lenient.output
    line = (f"warning: {(task / 'task.yaml').resolve()}: missing content: sources/paper.pdf: a Git LFS pointer "
            f"({len(POINTER)} bytes), not the file; fix: git lfs pull")
    assert any(l.startswith(line) for l in lenient.stderr.splitlines()), lenient.stderr
    assert "missing content: 1 file(s) in 1 task(s), 1 of them in the executor's inputs" in lenient.stdout
    strict = runner.invoke(app, ["catalog", "validate", "--strict", str(task)])
    assert strict.exit_code == 1
    assert f"{(task / 'task.yaml').resolve()}: missing content: sources/paper.pdf: a Git LFS pointer" in strict.stdout


def test_run_refuses_a_task_with_an_lfs_pointer_before_provisioning(tmp_path: Path, monkeypatch) -> None:
    """No engine is reachable: had the run tried to provision, it would have failed on Docker."""
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    _lfs_task(tmp_path / "tree")
    results = tmp_path / "results"
    result = CliRunner().invoke(app, ["run", "lfs_task", "--tasks", str(tmp_path / "tree"), "--claw", "reference",
                                      "--model", "scripted/cl-{task_id}", "--results", str(results), "--json"])
    assert result.exit_code == 1
    assert "refused before provisioning" in result.output and "sources/paper.pdf" in result.output
    row = json.loads(result.output[result.output.index("{"):result.output.rindex("}") + 1])
    assert row["status"] == "task_unrunnable" and row["error_kind"] == "unrunnable" and row["passed"] is None
    frame = ResultStore(results).read("adhoc")
    assert list(frame["status"]) == ["task_unrunnable"] and math.isnan(frame["score"].iloc[0])
    attempt = Path(row["artifacts_dir"])
    assert (attempt / "logs" / "missing-content.txt").read_text().startswith("sources/paper.pdf\ta Git LFS pointer")
    assert not (attempt / "logs" / "taskenv.json").exists()  # no container was made


def test_an_unrunnable_row_is_an_error_no_denominator_counts() -> None:
    import pandas as pd

    from analysis.metrics import task_trials
    from clawmark.results.synthetic import example_row

    assert "task_unrunnable" in ERROR_STATUSES
    refused = example_row(seed=1, status="task_unrunnable", score=math.nan)
    assert refused.passed is None and refused.error_kind == "unrunnable"
    counted = task_trials(pd.DataFrame([example_row(seed=0).model_dump(), refused.model_dump()]))
    assert (counted["n"].tolist(), counted["c"].tolist(), counted["errors"].tolist()) == ([1], [1], [1])
