"""Grade the patch a claw left: prediction line, fresh-container evaluation, report.json.

The evaluator's outcome is the row's (clawmark.swe.evaluate.EvalOutcome is a PatchOutcome): its
status already says who caused it (clawmark.results.status), its `failure_reason` and network
go to the row as they are."""

from __future__ import annotations

import shutil

from clawmark.attempts.patch_config import PatchAttemptConfig
from clawmark.attempts.phases import PhaseClock
from clawmark.catalog.swe import SweInstance
from clawmark.results import AttemptLayout, PatchOutcome
from clawmark.swe.evaluate import EvalConfig, EvalOutcome, evaluate_prediction
from clawmark.swe.patch_extract import ExtractedPatch
from clawmark.swe.predictions import Prediction, upsert_prediction

PREDICTIONS_FILE = "predictions.jsonl"


def model_name_or_path(claw: str, model: str) -> str:
    return f"{claw}__{model}"


def grade_patch(instance: SweInstance, patch: ExtractedPatch, claw: str, model: str, layout: AttemptLayout,
                config: PatchAttemptConfig, clock: PhaseClock, claw_note: str | None) -> PatchOutcome:
    """Evaluate the patch; ``claw_note`` (how the claw's turn went wrong, if it did) is kept in
    the row's message because the patch is graded whatever stopped the claw. ``config`` may set
    ``eval_network`` ("default" / "none") and ``eval_max_output_bytes``."""
    model_patch = None if patch.is_empty else patch.clean
    upsert_prediction(layout.dir / PREDICTIONS_FILE, Prediction(
        instance_id=instance.instance_id, model_name_or_path=model_name_or_path(claw, model),
        model_patch=model_patch))
    with clock.phase("evaluate"):
        outcome = evaluate_prediction(instance, model_patch, layout.dir / "eval",
                                      _eval_config(config))
    _keep_artifacts(outcome, layout)
    return patch_outcome(outcome, claw_note)


def patch_outcome(outcome: EvalOutcome, claw_note: str | None = None) -> PatchOutcome:
    """The row's outcome: the evaluator's, one turn, and the claw's note in the message."""
    return outcome.model_copy(update={"turns": 1, "error_message": _message(claw_note, outcome)})


def _eval_config(config: PatchAttemptConfig) -> EvalConfig:
    extra = {key: getattr(config, f"eval_{key}") for key in ("network", "max_output_bytes", "memory_mb")
             if getattr(config, f"eval_{key}", None) is not None}
    return EvalConfig(timeout_s=config.eval_timeout_s, reuse_reports=False, **extra)


def _message(claw_note: str | None, outcome: EvalOutcome) -> str | None:
    parts = (claw_note, None if outcome.graded else outcome.detail)
    return "; ".join(part for part in parts if part) or None


def _keep_artifacts(outcome: EvalOutcome, layout: AttemptLayout) -> None:
    """report.json and the test log at the layout's well-known names."""
    folder = layout.dir / "eval" / outcome.instance_id
    if (folder / "report.json").is_file():
        shutil.copyfile(folder / "report.json", layout.report)
    if outcome.log_path is not None and outcome.log_path.is_file():
        shutil.copyfile(outcome.log_path, layout.eval_log)
