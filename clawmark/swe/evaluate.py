"""Evaluate one prediction in a fresh instance container (no claw), SWE-bench style.

patch.diff → apply chain → eval script (host-side deadline, nonce-marked test region, see
clawmark.swe.eval_region) → test_output.txt → grade → report.json. Every way it can end is a
typed status, and who caused it decides where it counts (clawmark.results.status): what the
patch can cause (apply failure, tests past the deadline, a fault inside the test region, a log
without a usable result, output over the limit, tests the kernel's OOM killer ended at the
container's memory limit) is a measured failure with a `failure_reason`; what the world caused
(engine, image, a container the host killed, a row we cannot evaluate) is an error.
`report.json` is written only for a graded log (resolved or not): "report.json exists" means
the instance is done, so a later run reuses it for the same patch.

The container gets what swebench 5.0.2's harness gives by default, Docker's default network and
SYS_ADMIN (real eval scripts reinstall the package; browser runners such as karma need the
capability); `EvalConfig.network = "none"` makes a hermetic run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import docker.errors
import requests
from pydantic import BaseModel, Field

from clawmark.swe.apply import apply_patch
from clawmark.swe.errors import InstanceUnbuildable, SweRunError
from clawmark.results.outcome import PatchOutcome
from clawmark.results.status import FailureReason, Status
from clawmark.runtime.errors import ContainerGone, ImageBuildFailed, ImageMissing, RuntimeFailure
from clawmark.runtime.sandbox import Sandbox, SandboxConfig
from clawmark.stopwatch import Stopwatch
from clawmark.swe.eval_region import RegionFiles, ScriptHasNoMarkers, harness_script, run_harness_script
from clawmark.swe.eval_script import EvalScriptError, make_eval_script
from clawmark.swe.history_strip import REPO_DIR
from clawmark.swe.instance_image import instance_image
from clawmark.swe.log_grading import NoResult, grade, region_markers
from clawmark.swe.parsers import LogParserError
from clawmark.swe.parsers.base import MAX_LOG_CHARS
from clawmark.swe.summary_status import summary_status
from clawmark.swe.swebench_report import instance_report, write_instance_report

WORK_DIR = "/tmp/clawmark-eval"
PATCH_FILE, LOG_FILE, TEST_OUTPUT_FILE, EVAL_FILE = "patch.diff", "run_instance.log", "test_output.txt", "eval.sh"
REPORT_FILE = "report.json"


# NoResult reason of the grader → failure_reason of the row (all caused by what the patch runs).
_NO_RESULT_REASON = {
    "patch_apply_failed": FailureReason.TESTS_ERRORED, "reset_failed": FailureReason.TESTS_ERRORED,
    "tests_errored": FailureReason.TESTS_ERRORED, "tests_timed_out": FailureReason.TESTS_TIMEOUT,
    "exit_code_contradicts_log": FailureReason.EXIT_CODE_CONTRADICTS_LOG,
}
NETWORKS = {"default": "bridge", "none": "none"}  # EvalConfig.network → the sandbox's network (bridge: clawmark-open)


class EvalConfig(BaseModel):
    """Limits of one evaluation container."""

    timeout_s: float = Field(1800.0, gt=0, description="Deadline of the eval script (host side).")
    memory_mb: int = Field(8192, gt=0, description="Memory cap, no swap beyond it; tests the OOM killer ends "
                           "at it are the measured failure tests_oom.")
    cpus: float = Field(1.0, gt=0, description="CPU share.")
    pids_limit: int = Field(300, gt=0, description="Max processes/threads.")
    network: Literal["default", "none"] = Field(
        "default", description="default: a routed bridge (clawmark-open), as swebench's harness (eval scripts "
        "reinstall the package); none: a hermetic run. Recorded as the row's network_policy.")
    cap_add: list[str] = Field(default_factory=lambda: ["SYS_ADMIN"],
                               description="Capabilities added, as swebench's harness (karma needs SYS_ADMIN).")
    max_output_bytes: int = Field(32 * 2**20, gt=0, le=MAX_LOG_CHARS, description="Eval script output read back at most; "
                                  "more is the measured failure output_flood.")
    reuse_reports: bool = Field(True, description="Reuse an existing report.json made for the same patch.")


class EvalOutcome(PatchOutcome):
    """How one prediction's evaluation ended, row-ready: `status` in the rows' vocabulary
    (clawmark.results.status); `failure_reason` tells the measured failures apart (finer than
    status; None for a clean grade). SWE-bench's run-summary names come from
    clawmark.swe.summary_status, the one translation."""

    instance_id: str
    failure_reason: FailureReason | None = None
    no_result_reason: NoResult | None = Field(None, description="Why the grader found no result in the log.")
    report: dict[str, Any] | None = Field(None, description="The SWE-bench report.json content when graded.")
    log_path: Path | None = Field(None, description="The saved test log (test_output.txt).")
    apply_method: str | None = None
    detail: str | None = Field(None, description="Why it ended this way, for non-graded statuses.")
    durations: dict[str, float] = Field(default_factory=dict, description="Seconds per stage.")

    @property
    def graded(self) -> bool:
        return self.status in (Status.RESOLVED, Status.UNRESOLVED)


def evaluate_prediction(instance: Any, model_patch: str | None, out_dir: str | Path,
                        config: EvalConfig | None = None, progress=None) -> EvalOutcome:
    """Evaluate `model_patch` for `instance`; artifacts go to `out_dir/<instance_id>/`."""
    config = config or EvalConfig()
    folder = Path(out_dir) / instance.instance_id
    iid, watch = instance.instance_id, Stopwatch()
    if model_patch is None or not model_patch.strip():
        return EvalOutcome(instance_id=iid, status=Status.EMPTY_PATCH, detail="empty or None model_patch",
                           failure_reason=FailureReason.EMPTY_PATCH)
    folder.mkdir(parents=True, exist_ok=True)
    reused = _reused_outcome(folder, iid, model_patch) if config.reuse_reports else None
    if reused is not None:
        return reused
    (folder / REPORT_FILE).unlink(missing_ok=True)  # a stale report of another patch must not read as done
    (folder / PATCH_FILE).write_text(model_patch)
    outcome = _evaluate_guarded(instance, model_patch, folder, config, progress)
    outcome.durations["total"] = watch.elapsed()
    outcome.network_policy = config.network
    return outcome


def _evaluate_guarded(instance, model_patch, folder, config, progress) -> EvalOutcome:

    iid = instance.instance_id
    try:
        return _evaluate_in_container(instance, model_patch, folder, config, progress)
    except (EvalScriptError, ScriptHasNoMarkers, LogParserError) as exc:  # the row cannot be evaluated
        return _failed(folder, iid, Status.EVAL_ERROR, str(exc), FailureReason.EVAL_SCRIPT_MISSING)
    except ImageBuildFailed as exc:  # a subclass of ImageMissing, but a broken recipe is infra
        return _failed(folder, iid, Status.INFRA_ERROR, f"{type(exc).__name__}: {exc}",
                       FailureReason.IMAGE_BUILD_FAILED)
    except (ImageMissing, InstanceUnbuildable) as exc:  # incl. InstanceImageMissing, or removed since the check
        return _failed(folder, iid, Status.INFRA_ERROR, str(exc), FailureReason.IMAGE_MISSING)
    except ContainerGone as exc:
        if getattr(exc.result, "timed_out", False):  # the tests outlived the deadline and the kill
            return _failed(folder, iid, Status.EVAL_FAILED, str(exc), FailureReason.TESTS_TIMEOUT)
        return _failed(folder, iid, Status.INFRA_ERROR, f"{type(exc).__name__}: {exc}",
                       FailureReason.CONTAINER_GONE)
    except (RuntimeFailure, SweRunError, OSError, docker.errors.DockerException,
            requests.exceptions.RequestException) as exc:
        return _failed(folder, iid, Status.INFRA_ERROR, f"{type(exc).__name__}: {exc}",
                       FailureReason.ENGINE_ERROR)


def _evaluate_in_container(instance, model_patch, folder: Path, config: EvalConfig, progress) -> EvalOutcome:
    iid, watch = instance.instance_id, Stopwatch()
    image = instance_image(instance, progress)
    watch.lap("image")
    with Sandbox.provision(_sandbox_config(image, iid, config)) as sandbox:
        watch.lap("provision")
        sandbox.write_file(f"{WORK_DIR}/{PATCH_FILE}", model_patch.encode())
        applied = apply_patch(sandbox, f"{WORK_DIR}/{PATCH_FILE}")
        watch.lap("apply")
        (folder / LOG_FILE).write_text(f"image: {image}\nnetwork: {config.network}\n{applied.log}\n")
        if not applied.applied:
            return EvalOutcome(instance_id=iid, status=Status.APPLY_FAILED, durations=watch.laps,
                               failure_reason=FailureReason.APPLY_FAILED,
                               detail="no command of the apply chain applied the patch (see run_instance.log)")
        run = _run_eval_script(sandbox, instance, config, folder)
        watch.lap("eval")
    outcome = _grade(instance, model_patch, folder, run, config)
    outcome.apply_method, outcome.durations = applied.method, {**watch.laps, **outcome.durations}
    return outcome


def _run_eval_script(sandbox, instance, config: EvalConfig, folder: Path):
    """The row's eval script in its harness form (nonce region, exit code from the exec), its
    output read back under the size limit and saved as test_output.txt."""
    files = RegionFiles.under(WORK_DIR)
    script = harness_script(instance.eval_script or make_eval_script(instance), files)
    (folder / EVAL_FILE).write_text(script)
    sandbox.write_file(f"{WORK_DIR}/{EVAL_FILE}", script.encode(), mode=0o755)
    run = run_harness_script(sandbox, f"{WORK_DIR}/{EVAL_FILE}", files, config.timeout_s,
                             config.max_output_bytes, REPO_DIR)
    (folder / TEST_OUTPUT_FILE).write_text(run.log_text)
    return run


def _grade(instance, model_patch: str, folder: Path, run, config: EvalConfig) -> EvalOutcome:
    iid, log_path = instance.instance_id, folder / TEST_OUTPUT_FILE
    measured = {"instance_id": iid, "log_path": log_path}
    if run.stopped_from_inside:
        return EvalOutcome(**measured, status=Status.EVAL_FAILED, failure_reason=FailureReason.TESTS_ERRORED,
                           detail=f"the tests stopped their own container: {run.stopped_from_inside}")
    if run.timed_out:
        where = "in the tests" if region_markers(run.nonce)[0] in run.log_text else "before the tests started"
        return EvalOutcome(**measured, status=Status.EVAL_FAILED, failure_reason=FailureReason.TESTS_TIMEOUT,
                           detail=f"eval script ran past its {config.timeout_s:g}s deadline ({where})")
    if run.flooded:
        return EvalOutcome(**measured, status=Status.EVAL_FAILED, failure_reason=FailureReason.OUTPUT_FLOOD,
                           detail=f"eval script wrote {run.output_bytes} bytes, over the "
                                  f"{config.max_output_bytes}-byte limit")
    clock = Stopwatch()
    result = grade(instance, run.log_text, nonce=run.nonce)
    oom = f"the kernel's OOM killer ended a test process at the {config.memory_mb} MB memory limit"
    if result.no_result_reason is not None:
        reason = _NO_RESULT_REASON.get(result.no_result_reason.value, FailureReason.LOG_UNUSABLE)
        return EvalOutcome(**measured, status=Status.EVAL_FAILED, no_result_reason=result.no_result_reason,
                           failure_reason=FailureReason.TESTS_OOM if run.out_of_memory else reason,
                           detail=f"log gives no result: {result.no_result_reason.value}"
                                  + (f"; {oom}" if run.out_of_memory else ""))
    report = instance_report(iid, model_patch, result)
    write_instance_report(folder, report)
    status = Status.RESOLVED if result.resolved else Status.UNRESOLVED
    return EvalOutcome(**measured, status=status, resolution=result.resolution, report=report,
                       failure_reason=_unresolved_reason(result, run), durations={"grade": clock.elapsed()},
                       detail=oom if run.out_of_memory and not result.resolved else None)


def _unresolved_reason(result, run) -> FailureReason | None:
    """What else a graded, unresolved run shows: forged marker lines first (the patch tried to
    fake its verdict), then an OOM kill that a test runner survived (go test, a child process)."""
    if result.resolved:
        return None
    if result.forged_markers:
        return FailureReason.FORGED_MARKERS
    return FailureReason.TESTS_OOM if run.out_of_memory else None


def _reused_outcome(folder: Path, iid: str, model_patch: str) -> EvalOutcome | None:
    report_file, patch_file = folder / REPORT_FILE, folder / PATCH_FILE
    if not (report_file.is_file() and patch_file.is_file() and patch_file.read_text() == model_patch):
        return None
    try:
        report = json.loads(report_file.read_text())
        resolved = bool(report[iid]["resolved"])
    except (ValueError, KeyError, TypeError):
        return None
    return EvalOutcome(instance_id=iid, status=Status.RESOLVED if resolved else Status.UNRESOLVED,
                       report=report, log_path=folder / TEST_OUTPUT_FILE, detail="reused existing report.json")


def _failed(folder: Path, iid: str, status: Status, detail: str, reason: FailureReason) -> EvalOutcome:
    outcome = EvalOutcome(instance_id=iid, status=status, detail=detail, failure_reason=reason)
    with open(folder / LOG_FILE, "a") as log:
        log.write(f"{summary_status(outcome).value} ({reason.value}): {detail}\n")
    return outcome


def _sandbox_config(image: str, iid: str, config: EvalConfig):
    return SandboxConfig(image=image, cpus=config.cpus, memory_mb=config.memory_mb, pids_limit=config.pids_limit,
                         network=NETWORKS[config.network], privileges="swebench-harness", cap_add=config.cap_add, workdir=REPO_DIR, lifetime_seconds=int(config.timeout_s) + 900,
                         labels={"clawmark.role": "swe-eval", "clawmark.instance": iid[:60]})

