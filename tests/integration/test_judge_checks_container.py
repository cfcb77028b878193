"""Checks run for real in their own evaluation container: not the executor's, no network, with
the hidden references that never reach the executor, and a crashing check as a failed check."""

from __future__ import annotations

import json
import os

import pytest

from clawmark.judge.checks import check_image, run_checks
from clawmark.runtime.images import ensure_image
from clawmark.runtime.sandbox import Sandbox, SandboxConfig
from tests.support.judge_tasks import write_results, write_task

pytestmark = pytest.mark.docker

WHERE_AM_I = """import os, pathlib
print(json.dumps({"host": pathlib.Path('/etc/hostname').read_text().strip(),
                  "nets": sorted(os.listdir('/sys/class/net')),
                  "references": sorted(os.listdir(os.environ['CLAWMARK_REFERENCES']))}))
""".replace("import os", "import json, os")


def test_checks_run_in_a_separate_container_with_references_and_a_crash_is_a_failed_check(tmp_path, docker_client):
    task = write_task(tmp_path / "pkg", extra_references={"where.py": WHERE_AM_I, "boom.py": "raise SystemExit(3)\n"},
                      checks={"checks": [
                          {"id": "summary_exists", "checkpoint": "C1", "kind": "file_exists", "path": "results/summary.json"},
                          {"id": "total_matches", "checkpoint": "C2", "kind": "equals_reference",
                           "path": "results/summary.json", "pointer": "total",
                           "reference": "references/answer_key.json", "reference_pointer": "total"},
                          {"id": "where", "kind": "script", "script": "references/where.py"},
                          {"id": "boom", "kind": "script", "script": "references/boom.py"}]})
    artifacts = write_results(tmp_path / "results", {"summary.json": json.dumps({"total": 790.0})})
    executor = Sandbox.provision(SandboxConfig(image=ensure_image("python"), labels={"clawmark.test": "judge"}))
    with executor:
        executor.exec("mkdir -p /tmp_workspace/results", timeout_s=30)
        results = {r.id: r for r in run_checks(task, artifacts, check_image())}
        seen_by_executor = executor.exec("ls /judge /tmp_workspace/results 2>&1; cat /etc/hostname", timeout_s=30).stdout
    assert results["summary_exists"].passed and results["total_matches"].passed
    where = json.loads(results["where"].detail)
    assert where["host"] != executor.container_id[:12]
    assert where["nets"] == ["lo"]  # network none
    assert {"answer_key.json", "eval_rule.md", "checks.yaml"} <= set(where["references"])
    assert "No such file" in seen_by_executor and "summary.json" not in seen_by_executor
    assert (results["boom"].passed, results["boom"].crashed) == (False, True)
    assert results["boom"].detail.startswith("script exit 3")
    mine = {"label": ["clawmark.role=checks", f"clawmark.owner_pid={os.getpid()}"]}
    assert not docker_client.containers.list(all=True, filters=mine, ignore_removed=True)  # torn down
