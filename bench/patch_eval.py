"""Patch evaluation overhead: `evaluate_run` on the oracle predictions of the whole bundled suite
vs the sum of the rows' own eval scripts run bare in warm containers, measured in the same run.

Floor: per instance, a container from the same instance image, with the network and capabilities
the evaluator gives (EvalConfig: Docker's default network and SYS_ADMIN unless `--network none`),
the gold patch applied (untimed), then the row's own eval script timed as `bash eval.sh` (what a
plain `docker run` of it costs, its installs included: real rows reinstall the package, which
needs the same network as ours or the floor would be cut short). Ours: the wall time of one
`evaluate_run` (fresh container per instance, apply chain, harness script, grading, reports).
Usage: python bench/patch_eval.py [--instances FILE] [--target 2.0] [--network default|none]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from clawmark.catalog import load_instances
from clawmark.results.status import Status
from clawmark.runtime.sandbox import Sandbox, SandboxConfig
from clawmark.settings import TASKS_CATALOG
from clawmark.swe.eval_script import make_eval_script
from clawmark.swe.evaluate import NETWORKS, EvalConfig
from clawmark.swe.evaluation_run import evaluate_run
from clawmark.swe.instance_image import instance_image
from clawmark.swe.predictions import Prediction
from clawmark.swe.summary_status import summary_status

LABELS = {"clawmark.bench": "patch_eval"}


def bare_script_seconds(instance, image: str, config: EvalConfig) -> float:
    """The row's own eval script, run plainly in a container like the evaluator's, gold applied."""
    sandbox_config = SandboxConfig(image=image, workdir="/testbed", labels=LABELS, network=NETWORKS[config.network],
                                   cap_add=config.cap_add)
    script = instance.eval_script or make_eval_script(instance)
    with Sandbox.provision(sandbox_config) as sandbox:
        sandbox.write_file("/tmp/gold.patch", instance.patch.encode())
        applied = sandbox.exec("git apply /tmp/gold.patch", timeout_s=120)
        if applied.exit_code != 0:
            raise SystemExit(f"{instance.instance_id}: gold patch does not apply: {applied.stderr}")
        sandbox.write_file("/tmp/eval.sh", script.encode(), mode=0o755)
        result = sandbox.exec("bash /tmp/eval.sh > /tmp/out.txt 2>&1", timeout_s=config.timeout_s)
    if result.timed_out:
        raise SystemExit(f"{instance.instance_id}: the bare eval script ran past {config.timeout_s:g}s")
    return result.duration_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=Path, default=TASKS_CATALOG / "swe" / "instances.jsonl")
    parser.add_argument("--target", type=float, default=2.0, help="ratio considered acceptable")
    parser.add_argument("--network", choices=sorted(NETWORKS), default="default",
                        help="evaluator network, used for the floor too")
    args = parser.parse_args()
    config = EvalConfig(reuse_reports=False, network=args.network)
    instances = load_instances(args.instances)
    images = {i.instance_id: instance_image(i) for i in instances}  # build/warm images, untimed
    floor = {i.instance_id: bare_script_seconds(i, images[i.instance_id], config) for i in instances}
    predictions = {i.instance_id: Prediction(instance_id=i.instance_id, model_name_or_path="oracle",
                                             model_patch=i.patch) for i in instances}
    with tempfile.TemporaryDirectory(prefix="clawmark-bench-") as out:
        started = time.perf_counter()
        run = evaluate_run(instances, predictions, "bench", out, workers=1, config=config)
        ours = time.perf_counter() - started
    _report(instances, floor, run, ours, args.target, args.network)


def _report(instances, floor: dict[str, float], run, ours: float, target: float, network: str) -> None:
    print(f"patch_eval bench: {len(instances)} bundled instances, oracle predictions, 1 worker, network {network}")
    for instance in instances:
        outcome = run.outcomes[instance.instance_id]
        print(f"  {instance.instance_id:44s} bare script {floor[instance.instance_id]:6.2f}s   "
              f"evaluate {outcome.durations.get('total', float('nan')):6.2f}s   {summary_status(outcome).value}")
    stages = ("image", "provision", "apply", "eval", "grade", "total")
    sums = {stage: sum(o.durations.get(stage, 0.0) for o in run.outcomes.values()) for stage in stages}
    print("  summed per stage: " + ", ".join(f"{stage} {sums[stage]:.2f}s" for stage in stages))
    unresolved = [iid for iid, o in run.outcomes.items() if o.status is not Status.RESOLVED]
    ratio = ours / sum(floor.values())
    print(f"  sum of bare eval scripts (floor)   {sum(floor.values()):7.2f} s")
    print(f"  evaluate_run wall time             {ours:7.2f} s")
    print(f"  ratio {ratio:.2f}x (target <= {target}x): {'OK' if ratio <= target else 'SLOWER THAN TARGET'}")
    if unresolved:
        print(f"  NOT RESOLVED (oracle must resolve every instance): {unresolved}")


if __name__ == "__main__":
    main()
