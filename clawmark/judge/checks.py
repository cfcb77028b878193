"""Run a task's executable checks in a separate evaluation container.

The container (network none) gets a copy of the artifacts at /tmp_workspace/results and the
task's hidden references/ at /judge/references, never the executor's container. All checks run
in one exec of `check_runner.py`; each becomes a CheckResult. A check that crashes is a failed
check flagged `crashed` — the attempt goes on. Engine trouble (no image, container death)
raises the runtime's typed errors: that is an infra error, not a check result.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from pydantic import BaseModel, Field

from clawmark.catalog.check_specs import ChecksFile
from clawmark.catalog.task import ClosedLoopTask
from clawmark.runtime.images import ensure_image, image_present, image_ref
from clawmark.runtime.sandbox import Sandbox, SandboxConfig

RUNNER = Path(__file__).with_name("check_runner.py")
WORKSPACE = "/tmp_workspace"
JUDGE_DIR = "/judge"
RUN_GRACE_S = 60.0


class CheckResult(BaseModel):
    id: str
    passed: bool
    detail: str = ""
    crashed: bool = Field(False, description="The check itself raised or timed out (a failed check).")
    checkpoint: str | None = None


class CheckRunConfig(BaseModel):
    """Limits of the evaluation container."""

    cpus: float = Field(1.0, gt=0)
    memory_mb: int = Field(1024, gt=0)
    lifetime_seconds: int = Field(1800, gt=0)
    labels: dict[str, str] = Field(default_factory=dict)


def check_image() -> str:
    """The workstation image when it is present (tasks' scripts expect its libraries), else python."""
    try:
        workstation = image_ref("workstation")
    except Exception:  # noqa: BLE001 - no workstation recipe yet: fall back
        workstation = None
    return workstation if workstation and image_present(workstation) else ensure_image("python")


def run_checks(task: ClosedLoopTask, artifacts_dir: Path, image: str,
               config: CheckRunConfig | None = None) -> list[CheckResult]:
    """Every check of `task` against a host copy of /tmp_workspace/results; [] when it has none."""
    checks: ChecksFile | None = getattr(task, "checks", None)
    if not checks or not checks.checks:
        return []
    config = config or CheckRunConfig()
    with tempfile.TemporaryDirectory(prefix="clawmark-checks-") as tmp:
        judge = _stage_judge(Path(tmp) / "judge", task, checks)
        results = _stage_results(Path(tmp) / "tmp_workspace", artifacts_dir)
        raw = _run_in_container(image, config, judge, results, _deadline(checks))
    return _results(checks, raw)


def _stage_judge(folder: Path, task: ClosedLoopTask, checks: ChecksFile) -> Path:
    references = task.package_dir / "references"
    if references.is_dir():
        shutil.copytree(references, folder / "references")
    else:
        (folder / "references").mkdir(parents=True)
    shutil.copy(RUNNER, folder / "check_runner.py")
    (folder / "checks.json").write_text(json.dumps([c.model_dump(mode="json") for c in checks.checks]))
    return folder


def _stage_results(folder: Path, artifacts_dir: Path) -> Path:
    target = folder / "results"
    if artifacts_dir.is_dir():
        shutil.copytree(artifacts_dir, target, ignore=_symlinks)
    else:
        target.mkdir(parents=True)
    return folder


def _symlinks(folder: str, names: list[str]) -> list[str]:
    """Links are dropped: one could point a checked artifact at the hidden references."""
    return [n for n in names if os.path.islink(os.path.join(folder, n))]


def _deadline(checks: ChecksFile) -> float:
    return RUN_GRACE_S + sum(c.timeout_s for c in checks.checks if c.kind == "script")


def _run_in_container(image: str, config: CheckRunConfig, judge: Path, workspace: Path,
                      timeout_s: float) -> str | Exception:
    """The runner's stdout, or the reason it produced none (every check then fails, flagged)."""
    sandbox_config = SandboxConfig(image=image, network="none", cpus=config.cpus, memory_mb=config.memory_mb,
                                   lifetime_seconds=config.lifetime_seconds,
                                   labels={"clawmark.role": "checks", **config.labels})
    with Sandbox.provision(sandbox_config) as sandbox:
        sandbox.copy_in(judge, "/")
        sandbox.copy_in(workspace, "/")
        result = sandbox.exec(["python3", f"{JUDGE_DIR}/check_runner.py", f"{JUDGE_DIR}/checks.json", WORKSPACE,
                               JUDGE_DIR], timeout_s=timeout_s, workdir=WORKSPACE)
    if result.exit_code != 0 or result.timed_out:
        return RuntimeError(f"check runner exit {result.exit_code} (timed out: {result.timed_out}): "
                            f"{result.stderr.strip()[-300:]}")
    return result.stdout


def _results(checks: ChecksFile, raw: str | Exception) -> list[CheckResult]:
    """One result per declared check, in file order; a runner failure fails (and flags) them all."""
    by_id: dict[str, dict] = {}
    if not isinstance(raw, Exception):
        try:
            by_id = {r["id"]: r for r in json.loads(raw)}
        except (ValueError, TypeError, KeyError) as exc:
            raw = RuntimeError(f"check runner output is not a result list: {exc}")
    out = []
    for check in checks.checks:
        found = by_id.get(check.id) or {"passed": False, "crashed": True,
                                        "detail": f"no result: {raw if isinstance(raw, Exception) else 'missing'}"}
        out.append(CheckResult(id=check.id, checkpoint=check.checkpoint, passed=bool(found["passed"]),
                               crashed=bool(found.get("crashed")), detail=str(found.get("detail", ""))))
    return out
