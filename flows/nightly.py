"""Nightly regression: the nightly sweep under a dated id, compared with the previous night on
the cells both ran; a significant drop fails the flow run, with the evidence as an artifact."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact

from analysis.regression import compare_nights, evidence_markdown, regressions
from blocks.use import use_blocks
from clawmark.sweeps import load_spec
from clawmark.sweeps.spec import NIGHTLY_SPEC
from flows.coordinate import results_store
from flows.sweep import sweep


class RegressionFound(RuntimeError):
    """A configuration got significantly worse than the night before (fails the flow run)."""


@flow(name="nightly", log_prints=True)
def nightly(spec_file: str = str(NIGHTLY_SPEC), results_dir: str | None = None,
            date: str | None = None, alpha: float = 0.05, result_store_block: str | None = None,
            docker_host_block: str | None = None, model_endpoint_blocks: list[str] | None = None) -> dict[str, Any]:
    results_dir = use_blocks(result_store_block, docker_host_block, model_endpoint_blocks) or results_dir
    spec = load_spec(spec_file)
    day = date or datetime.now(UTC).strftime("%Y%m%d")
    tonight = f"{spec.sweep_id}-{day}"
    result = sweep(spec=spec.model_copy(update={"sweep_id": tonight}).model_dump(mode="json"),
                   results_dir=results_dir)
    store = results_store(results_dir)
    earlier = sorted(s for s in store.sweeps() if s.startswith(f"{spec.sweep_id}-") and s < tonight)
    if not earlier:
        return {**result, "regressions": []}
    before, after = store.read(earlier[-1]), store.read(tonight)
    comparison = compare_nights(before, after, alpha=alpha)
    create_markdown_artifact(key=f"nightly-{spec.sweep_id}".lower().replace("_", "-"),
                             markdown=evidence_markdown(comparison, earlier[-1], tonight),
                             description=f"{tonight} vs {earlier[-1]}")
    found = regressions(before, after, alpha=alpha)
    for line in found:
        get_run_logger().warning("regression vs %s: %s", earlier[-1], line)
    if len(comparison.significant):
        raise RegressionFound(f"{tonight}: significant drop vs {earlier[-1]}: " + "; ".join(found))
    return {**result, "baseline": earlier[-1], "regressions": found}
