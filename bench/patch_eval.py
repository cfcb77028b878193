"""Patch evaluation overhead: `evaluate_run` on the oracle predictions of the whole bundled suite
vs the sum of the bare test-command times in warm containers, measured in the same run.

Floor: per instance, a container from the same instance image is started, the gold and test
patches applied (all untimed), then only the test command is timed. Ours: the wall time of one
`evaluate_run` (fresh container per instance, apply chain, eval script, grading, reports).
Usage: python bench/patch_eval.py [--instances FILE] [--target 2.0]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from clawmark.catalog import load_instances
from clawmark.runtime.sandbox import Sandbox, SandboxConfig
from clawmark.settings import TASKS_CATALOG
from clawmark.swe.evaluate import EvalConfig, EvalStatus
from clawmark.swe.evaluation_run import evaluate_run
from clawmark.swe.instance_image import instance_image
from clawmark.swe.predictions import Prediction

LABELS = {"clawmark.bench": "patch_eval"}


def bare_test_seconds(instance, image: str) -> float:
    """The test command alone, in a running container with gold + test patches applied."""
    with Sandbox.provision(SandboxConfig(image=image, workdir="/testbed", labels=LABELS)) as sandbox:
        for name, patch in (("gold", instance.patch), ("test", instance.test_patch)):
            sandbox.write_file(f"/tmp/{name}.patch", patch.encode())
            applied = sandbox.exec(f"git apply /tmp/{name}.patch", timeout_s=120)
            if applied.exit_code != 0:
                raise SystemExit(f"{instance.instance_id}: {name} patch does not apply: {applied.stderr}")
        result = sandbox.exec(f"({instance.test_cmd}) > /dev/null 2>&1", timeout_s=1800)
    if result.exit_code != 0:
        raise SystemExit(f"{instance.instance_id}: the gold tests fail (exit {result.exit_code})")
    return result.duration_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=Path, default=TASKS_CATALOG / "swe" / "instances.jsonl")
    parser.add_argument("--target", type=float, default=2.0, help="ratio considered acceptable")
    args = parser.parse_args()
    instances = load_instances(args.instances)
    images = {i.instance_id: instance_image(i) for i in instances}  # build/warm images, untimed
    floor = {i.instance_id: bare_test_seconds(i, images[i.instance_id]) for i in instances}
    predictions = {i.instance_id: Prediction(instance_id=i.instance_id, model_name_or_path="oracle",
                                             model_patch=i.patch) for i in instances}
    with tempfile.TemporaryDirectory(prefix="clawmark-bench-") as out:
        started = time.perf_counter()
        run = evaluate_run(instances, predictions, "bench", out, workers=1, config=EvalConfig(reuse_reports=False))
        ours = time.perf_counter() - started
    _report(instances, floor, run, ours, args.target)


def _report(instances, floor: dict[str, float], run, ours: float, target: float) -> None:
    print(f"patch_eval bench: {len(instances)} bundled instances, oracle predictions, 1 worker")
    for instance in instances:
        outcome = run.outcomes[instance.instance_id]
        print(f"  {instance.instance_id:44s} bare test {floor[instance.instance_id]:6.2f}s   "
              f"evaluate {outcome.durations.get('total', float('nan')):6.2f}s   {outcome.status.value}")
    stages = ("image", "provision", "apply", "eval", "grade", "total")
    sums = {stage: sum(o.durations.get(stage, 0.0) for o in run.outcomes.values()) for stage in stages}
    print("  summed per stage: " + ", ".join(f"{stage} {sums[stage]:.2f}s" for stage in stages))
    unresolved = [iid for iid, o in run.outcomes.items() if o.status is not EvalStatus.RESOLVED]
    ratio = ours / sum(floor.values())
    print(f"  sum of bare test commands (floor)  {sum(floor.values()):7.2f} s")
    print(f"  evaluate_run wall time             {ours:7.2f} s")
    print(f"  ratio {ratio:.2f}x (target <= {target}x): {'OK' if ratio <= target else 'SLOWER THAN TARGET'}")
    if unresolved:
        print(f"  NOT RESOLVED (oracle must resolve every instance): {unresolved}")


if __name__ == "__main__":
    main()
