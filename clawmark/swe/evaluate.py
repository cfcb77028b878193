"""Evaluate one prediction in a fresh instance container (no claw, no network), SWE-bench style.

patch.diff → apply chain → eval script (host-side deadline) → test_output.txt → grade →
report.json. Every way it can end is a typed status, and infrastructure trouble is never
reported as "unresolved". `report.json` is written only for a graded log (resolved or not):
"report.json exists" means the instance is done, so a later run reuses it for the same patch.
"""

from __future__ import annotations

import time
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from clawmark.swe.apply import apply_patch
from clawmark.swe.errors import InstanceUnbuildable, SweRunError
from clawmark.swe.history import REPO_DIR

WORK_DIR = "/tmp/clawmark-eval"
PATCH_FILE, LOG_FILE, TEST_OUTPUT_FILE, EVAL_FILE = "patch.diff", "run_instance.log", "test_output.txt", "eval.sh"
REPORT_FILE = "report.json"


class EvalStatus(str, Enum):
    RESOLVED = "resolved"
    UNRESOLVED = "unresolved"  # graded: the model's patch did not (fully) fix it
    EMPTY_PATCH = "empty_patch"  # nothing to run
    APPLY_FAILED = "apply_failed"  # no command of the chain applied the patch
    EVAL_TIMEOUT = "eval_timeout"  # the eval script ran past its deadline
    EVAL_ERROR = "eval_error"  # the log gives no result (markers missing, suite did not run, ...)
    INFRA_ERROR = "infra_error"  # engine, container, build or git trouble: not the model's fault
    IMAGE_MISSING = "image_missing"  # the row's image is absent and cannot be built here

    @property
    def graded(self) -> bool:
        return self in (EvalStatus.RESOLVED, EvalStatus.UNRESOLVED)


class EvalConfig(BaseModel):
    """Limits of one evaluation container."""

    timeout_s: float = Field(1800.0, gt=0, description="Deadline of the eval script (host side).")
    memory_mb: int = Field(8192, gt=0, description="Memory cap, no swap beyond it.")
    cpus: float = Field(1.0, gt=0, description="CPU share.")
    pids_limit: int = Field(300, gt=0, description="Max processes/threads.")
    reuse_reports: bool = Field(True, description="Reuse an existing report.json made for the same patch.")


class EvalOutcome(BaseModel):
    """How one prediction's evaluation ended."""

    instance_id: str
    status: EvalStatus
    resolution: str | None = Field(None, description="RESOLVED_FULL / RESOLVED_PARTIAL / RESOLVED_NO when graded.")
    report: dict[str, Any] | None = Field(None, description="The SWE-bench report.json content when graded.")
    log_path: Path | None = Field(None, description="The saved test log (test_output.txt).")
    apply_method: str | None = None
    detail: str | None = Field(None, description="Why it ended this way, for non-graded statuses.")
    durations: dict[str, float] = Field(default_factory=dict, description="Seconds per stage.")


def evaluate_prediction(instance: Any, model_patch: str | None, out_dir: str | Path,
                        config: EvalConfig | None = None, progress=None) -> EvalOutcome:
    """Evaluate `model_patch` for `instance`; artifacts go to `out_dir/<instance_id>/`."""
    config = config or EvalConfig()
    folder = Path(out_dir) / instance.instance_id
    iid, started = instance.instance_id, time.monotonic()
    if model_patch is None or not model_patch.strip():
        return EvalOutcome(instance_id=iid, status=EvalStatus.EMPTY_PATCH, detail="empty or None model_patch")
    folder.mkdir(parents=True, exist_ok=True)
    reused = _reused_outcome(folder, iid, model_patch) if config.reuse_reports else None
    if reused is not None:
        return reused
    (folder / REPORT_FILE).unlink(missing_ok=True)  # a stale report of another patch must not read as done
    (folder / PATCH_FILE).write_text(model_patch)
    outcome = _evaluate_guarded(instance, model_patch, folder, config, progress)
    outcome.durations["total"] = round(time.monotonic() - started, 3)
    return outcome


def _evaluate_guarded(instance, model_patch, folder, config, progress) -> EvalOutcome:
    from clawmark.runtime.errors import ImageBuildFailed, ImageMissing, RuntimeFailure
    from clawmark.swe.eval_script import EvalScriptError

    iid = instance.instance_id
    try:
        return _evaluate_in_container(instance, model_patch, folder, config, progress)
    except EvalScriptError as exc:  # the row has neither eval_script nor test_cmd
        return _failed(folder, iid, EvalStatus.EVAL_ERROR, str(exc))
    except ImageBuildFailed as exc:  # a subclass of ImageMissing, but a broken recipe is infra
        return _failed(folder, iid, EvalStatus.INFRA_ERROR, f"{type(exc).__name__}: {exc}")
    except (ImageMissing, InstanceUnbuildable) as exc:  # incl. InstanceImageMissing, or removed since the check
        return _failed(folder, iid, EvalStatus.IMAGE_MISSING, str(exc))
    except (RuntimeFailure, SweRunError, OSError) as exc:
        return _failed(folder, iid, EvalStatus.INFRA_ERROR, f"{type(exc).__name__}: {exc}")


def _evaluate_in_container(instance, model_patch, folder: Path, config: EvalConfig, progress) -> EvalOutcome:
    from clawmark.runtime.sandbox import Sandbox
    from clawmark.swe.instance_image import instance_image

    iid, watch = instance.instance_id, _Stopwatch()
    image = instance_image(instance, progress)
    watch.lap("image")
    with Sandbox.provision(_sandbox_config(image, iid, config)) as sandbox:
        watch.lap("provision")
        sandbox.write_file(f"{WORK_DIR}/{PATCH_FILE}", model_patch.encode())
        applied = apply_patch(sandbox, f"{WORK_DIR}/{PATCH_FILE}")
        watch.lap("apply")
        (folder / LOG_FILE).write_text(f"image: {image}\n{applied.log}\n")
        if not applied.applied:
            return EvalOutcome(instance_id=iid, status=EvalStatus.APPLY_FAILED, durations=watch.laps,
                               detail="no command of the apply chain applied the patch (see run_instance.log)")
        log_text, timed_out = _run_eval_script(sandbox, instance, config, folder)
        watch.lap("eval")
    outcome = _grade(instance, model_patch, folder, log_text, timed_out, config)
    outcome.apply_method, outcome.durations = applied.method, {**watch.laps, **outcome.durations}
    return outcome


def _run_eval_script(sandbox, instance, config: EvalConfig, folder: Path) -> tuple[str, bool]:
    """Run the eval script into a file in the container (no exec output cap), save it as test_output.txt."""
    from clawmark.swe.eval_script import make_eval_script, record_exit_code

    script = record_exit_code(instance.eval_script) if instance.eval_script else make_eval_script(instance)
    (folder / EVAL_FILE).write_text(script)
    sandbox.write_file(f"{WORK_DIR}/{EVAL_FILE}", script.encode(), mode=0o755)
    output = f"{WORK_DIR}/{TEST_OUTPUT_FILE}"
    result = sandbox.exec(f"bash {WORK_DIR}/{EVAL_FILE} > {output} 2>&1", timeout_s=config.timeout_s, workdir=REPO_DIR)
    log_text = sandbox.read_file(output).decode(errors="replace")
    (folder / TEST_OUTPUT_FILE).write_text(log_text)
    return log_text, result.timed_out


def _grade(instance, model_patch: str, folder: Path, log_text: str, timed_out: bool, config) -> EvalOutcome:
    from clawmark.swe.grading import grade
    from clawmark.swe.parsers import LogParserError
    from clawmark.swe.report import instance_report, write_instance_report

    iid, log_path = instance.instance_id, folder / TEST_OUTPUT_FILE
    if timed_out:
        return EvalOutcome(instance_id=iid, status=EvalStatus.EVAL_TIMEOUT, log_path=log_path,
                           detail=f"eval script ran past its {config.timeout_s:g}s deadline")
    clock = time.monotonic()
    try:
        result = grade(instance, log_text)
    except LogParserError as exc:
        return EvalOutcome(instance_id=iid, status=EvalStatus.EVAL_ERROR, log_path=log_path, detail=str(exc))
    if result.no_result_reason is not None:
        return EvalOutcome(instance_id=iid, status=EvalStatus.EVAL_ERROR, log_path=log_path,
                           detail=f"log gives no result: {result.no_result_reason.value}")
    report = instance_report(iid, model_patch, result)
    write_instance_report(folder, report)
    status = EvalStatus.RESOLVED if result.resolved else EvalStatus.UNRESOLVED
    return EvalOutcome(instance_id=iid, status=status, resolution=result.resolution.value, report=report,
                       log_path=log_path, durations={"grade": _lap(clock)})


def _reused_outcome(folder: Path, iid: str, model_patch: str) -> EvalOutcome | None:
    import json

    report_file, patch_file = folder / REPORT_FILE, folder / PATCH_FILE
    if not (report_file.is_file() and patch_file.is_file() and patch_file.read_text() == model_patch):
        return None
    try:
        report = json.loads(report_file.read_text())
        resolved = bool(report[iid]["resolved"])
    except (ValueError, KeyError, TypeError):
        return None
    return EvalOutcome(instance_id=iid, status=EvalStatus.RESOLVED if resolved else EvalStatus.UNRESOLVED,
                       report=report, log_path=folder / TEST_OUTPUT_FILE, detail="reused existing report.json")


def _failed(folder: Path, iid: str, status: EvalStatus, detail: str) -> EvalOutcome:
    with open(folder / LOG_FILE, "a") as log:
        log.write(f"{status.value}: {detail}\n")
    return EvalOutcome(instance_id=iid, status=status, detail=detail)


def _sandbox_config(image: str, iid: str, config: EvalConfig):
    from clawmark.runtime.sandbox import SandboxConfig

    return SandboxConfig(image=image, cpus=config.cpus, memory_mb=config.memory_mb, pids_limit=config.pids_limit,
                         network="none", workdir=REPO_DIR, lifetime_seconds=int(config.timeout_s) + 900,
                         labels={"clawmark.role": "swe-eval", "clawmark.instance": iid[:60]})


def _lap(since: float) -> float:
    return round(time.monotonic() - since, 3)


class _Stopwatch:
    """Seconds per stage: each lap is the time since the previous one."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.monotonic()

    def lap(self, stage: str) -> None:
        self.laps[stage] = _lap(self._last)
        self._last = time.monotonic()
