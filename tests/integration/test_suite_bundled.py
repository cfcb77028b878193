"""Every bundled patch task, for real, in its clawmark runtime image: the row's own eval_script
at base (+ test_patch) must fail every FAIL_TO_PASS test and pass every PASS_TO_PASS test; with
the gold patch applied every listed test must pass; each stage runs twice with identical
results. Logs are parsed with swebench's own parsers (test-only use)."""

from __future__ import annotations

import importlib.util
import shlex
import sys

import pytest

from clawmark.catalog import load_instances
from clawmark.runtime.images import ensure_image
from clawmark.runtime.sandbox import Sandbox, SandboxConfig
from clawmark.settings import TASKS_CATALOG

pytestmark = [pytest.mark.docker, pytest.mark.slow]  # ~16 s per instance (4 eval runs)

SUITE_DIR = TASKS_CATALOG / "swe"
EXEC_TIMEOUT_S = 600
ROWS = load_instances(SUITE_DIR / "instances.jsonl")


def _verifier():
    spec = importlib.util.spec_from_file_location("swe_suite_verify", SUITE_DIR / "verify_suite.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


verify = _verifier()


def _run(sb: Sandbox, cmd: str) -> str:
    result = sb.exec(cmd, timeout_s=EXEC_TIMEOUT_S)
    assert result.exit_code == 0 and not result.timed_out, f"{cmd}: {result.stderr[-2000:]}"
    return result.stdout


def _eval_twice(sb: Sandbox, row: dict, gold: bool):
    """Two runs of the eval script, each on a tree reset to base (+ gold patch)."""
    results = []
    for _ in range(2):
        _run(sb, f"cd /testbed && git reset -q --hard {row['base_commit']} && git clean -fdq")
        if gold:
            _run(sb, "cd /testbed && git apply /tmp/gold.diff")
        out = sb.exec(["bash", "/tmp/eval.sh"], timeout_s=EXEC_TIMEOUT_S)
        assert not out.timed_out, f"{row['instance_id']}: eval script timed out"
        results.append(verify.run_result(row, out.stdout + "\n" + out.stderr))
    return results


@pytest.mark.parametrize("instance", ROWS, ids=[r.instance_id for r in ROWS])
def test_instance_fails_before_and_passes_with_gold(instance, docker_client):
    row = instance.model_dump(mode="json")
    image = ensure_image(row["runtime_image"])
    config = SandboxConfig(image=image, labels={"clawmark.test": "swe-suite"}, lifetime_seconds=1800)
    with Sandbox.provision(config) as sb:
        sb.copy_in(instance.repo_bundle, "/tmp")
        bundle = f"/tmp/{instance.repo_bundle.name}"
        _run(sb, f"git clone -q {shlex.quote(bundle)} /testbed && git -C /testbed checkout -q {row['base_commit']}")
        sb.write_file("/tmp/eval.sh", row["eval_script"].encode(), mode=0o755)
        sb.write_file("/tmp/gold.diff", row["patch"].encode())
        problems = []
        for gold in (False, True):
            first, second = _eval_twice(sb, row, gold)
            problems += verify.stage_problems(row, gold, first, second)
    assert problems == [], f"{row['instance_id']}: {problems}"
