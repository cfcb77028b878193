"""Evaluate a whole predictions set: one failure never stops the rest; a run summary in SWE-bench's
shape (plus clawmark's per-status ids) is written at the end.

Layout: `<out_dir>/<run_id>/<model>/<instance_id>/` per instance (as swebench's
`logs/run_evaluation/<run_id>/<model>/<iid>/`) and `<out_dir>/<run_id>/run_summary.json`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clawmark.results.status import FailureReason, Status
from clawmark.swe.evaluate import EvalConfig, EvalOutcome, evaluate_prediction
from clawmark.swe.predictions import Prediction
from clawmark.swe.swebench_report import run_summary as swebench_summary, write_json_atomic
from clawmark.swe.summary_status import SummaryStatus, summary_status

if TYPE_CHECKING:
    from clawmark.catalog.swe import SweInstance

SUMMARY_FILE = "run_summary.json"


@dataclass
class RunResult:
    """Outcomes by instance id, the summary written, and prediction ids no instance matches."""

    outcomes: dict[str, EvalOutcome]
    summary: dict[str, Any]
    summary_path: Path
    unknown_ids: list[str] = field(default_factory=list)


def evaluate_run(instances: Iterable[SweInstance], predictions: Mapping[str, Prediction], run_id: str,
                 out_dir: str | Path, workers: int = 1, config: EvalConfig | None = None,
                 on_done: Callable[[EvalOutcome], None] | None = None) -> RunResult:
    """Evaluate every prediction whose instance is known; unknown ids are listed, not run."""
    by_id = {instance.instance_id: instance for instance in instances}
    unknown = sorted(iid for iid in predictions if iid not in by_id)
    todo = [(by_id[iid], predictions[iid]) for iid in sorted(predictions) if iid in by_id]
    run_dir = Path(out_dir) / _safe(run_id)
    outcomes: dict[str, EvalOutcome] = {}
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {pool.submit(_one, instance, prediction, run_dir, config): instance.instance_id
                   for instance, prediction in todo}
        for future in as_completed(futures):
            outcome = future.result()
            outcomes[outcome.instance_id] = outcome
            if on_done:
                on_done(outcome)
    summary = run_summary(list(by_id), predictions, outcomes, unknown)

    return RunResult(outcomes, summary, write_json_atomic(run_dir / SUMMARY_FILE, summary), unknown)


def run_summary(instance_ids: list[str], predictions: Mapping[str, Prediction],
                outcomes: Mapping[str, EvalOutcome], unknown: list[str]) -> dict[str, Any]:
    """swebench's run report plus `status_counts`, `<status>_ids`, `failure_reason_counts` and
    `unknown_instance_ids`. swebench's `error_instances` (no report.json) mixes what the patch
    caused with what the world caused; the statuses tell them apart (clawmark.results.status)."""
    known = {iid: p.model_patch for iid, p in predictions.items() if iid not in unknown}
    summary = swebench_summary(instance_ids, known, {iid: o.report for iid, o in outcomes.items()})
    statuses = {iid: summary_status(o) for iid, o in outcomes.items()}
    for status in SummaryStatus:
        summary[f"{status.value}_ids"] = sorted(iid for iid, s in statuses.items() if s is status)
    summary["status_counts"] = {s.value: len(summary[f"{s.value}_ids"]) for s in SummaryStatus}
    reasons = sorted(o.failure_reason.value for o in outcomes.values() if o.failure_reason)
    summary["failure_reason_counts"] = {reason: reasons.count(reason) for reason in dict.fromkeys(reasons)}
    summary["unknown_instance_ids"] = unknown
    summary["schema_version"] = 2
    return summary


def _one(instance: SweInstance, prediction: Prediction, run_dir: Path, config: EvalConfig | None) -> EvalOutcome:
    """Never raises: anything unexpected becomes an infra_error outcome for this instance only."""
    try:
        return evaluate_prediction(instance, prediction.model_patch, run_dir / _safe(prediction.model_name_or_path),
                                   config)
    except Exception as exc:  # noqa: BLE001 - one instance's bug must not stop the run
        return EvalOutcome(instance_id=instance.instance_id, status=Status.INFRA_ERROR,
                           detail=f"unexpected {type(exc).__name__}: {exc}", failure_reason=FailureReason.HARNESS_BUG)


def _safe(name: str) -> str:
    """A folder name for a run id or model name (`org/model` → `org__model`)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "__", name).strip("._") or "unnamed"
