"""Closed-loop harness overhead: one attempt with three executor turns on scripted models
(provision, inject, services, checks, supervisor, simulator, teardown) vs the sum of the claw's
own turn times, in one run.

The bench writes its own cassettes: the executor does one small bash step per turn, the
supervisor says continue twice then fail, the simulator asks for more. Prints the attempt's
phases, the claw's own time, the harness overhead and the ratio.
Usage: python bench/closed_loop.py [--task TASK_ID] [--image IMAGE]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import yaml

from clawmark.catalog import load_tasks
from clawmark.settings import TASKS_CATALOG

TURNS = 3


def decision(verdict: str, state: str, score: float, recoverable: bool) -> str:
    return json.dumps({"verdict": verdict, "attempt_state": state, "recoverable": recoverable, "score": score,
                       "confidence": "medium", "rationale": "bench", "missing_artifacts": [], "guidance_tags": []})


def write_cassettes(folder: Path) -> None:
    executor = []
    for turn in range(TURNS):
        command = f"ls /tmp_workspace/clawbench/sources >/dev/null; echo turn{turn} >> /tmp_workspace/results/notes.txt"
        executor += [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]},
                     {"content": f"Turn {turn + 1} done."}]
    supervisor = [{"match": f"EXECUTOR TURN {n} OF {TURNS}", "content": decision("continue", "incomplete", 0.1 * n, True)}
                  for n in range(1, TURNS)]
    supervisor.append({"match": f"EXECUTOR TURN {TURNS} OF {TURNS}",
                       "content": decision("fail", "complete_but_failed", 0.3, False)})
    simulator = [{"content": json.dumps({"mode": "instruction", "tone": "plain", "public_points": [],
                                         "feedback": "Please finish the rest of what I asked for."})}]
    for name, steps in (("bench-cl-exec", executor), ("bench-cl-sup", supervisor), ("bench-cl-sim", simulator)):
        (folder / f"{name}.yaml").write_text(yaml.safe_dump({"steps": steps}))


def pick_task(task_id: str | None):
    tasks = load_tasks(TASKS_CATALOG / "closed_loop")
    if task_id:
        return next(t for t in tasks if t.task_id == task_id)
    return next(t for t in tasks if t.services and t.spec.codex.max_user_followups == TURNS - 1)


def run(task, image: str | None, root: Path):
    from clawmark.attempts.closed_loop import ClosedLoopAttemptConfig, run_closed_loop_attempt
    from clawmark.gateway.server import GatewayConfig, GatewayServer
    from clawmark.results import ResultStore

    config = ClosedLoopAttemptConfig(supervisor_model="scripted/bench-cl-sup", simulator_model="scripted/bench-cl-sim",
                                     image=image)
    began = time.perf_counter()
    with GatewayServer(GatewayConfig(host="0.0.0.0", ledger_dir=root / "ledgers")) as gateway:
        print(f"  (gateway start, once per sweep: {time.perf_counter() - began:.2f} s)")
        return run_closed_loop_attempt(task, "reference", "scripted/bench-cl-exec", 0, ResultStore(root / "results"),
                                       "bench", gateway, config=config)


def claw_seconds(row) -> float:
    folder = Path(row.artifacts_dir) / "cycles"
    return sum(json.loads((p / "turn.json").read_text())["duration_s"] for p in folder.iterdir() if (p / "turn.json").is_file())


def role_latency(row) -> dict[str, float]:
    from clawmark.gateway.ledger import read_ledger

    totals: dict[str, float] = {}
    for record in read_ledger(Path(row.artifacts_dir) / "ledger.jsonl"):
        totals[record.role] = totals.get(record.role, 0.0) + record.latency_s
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default=None, help="bundled task id (default: the first with a service)")
    parser.add_argument("--image", default=None, help="task container image (default: workstation)")
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with tempfile.TemporaryDirectory(prefix="clawmark-bench-cl-") as tmp:
        root = Path(tmp)
        (root / "cassettes").mkdir()
        write_cassettes(root / "cassettes")
        os.environ["CLAWMARK_CASSETTES"] = str(root / "cassettes")
        task = pick_task(args.task)
        row = run(task, args.image, root)
        own = claw_seconds(row)
        latency = role_latency(row)
    wall = row.wall
    print(f"closed-loop bench: task {task.task_id} ({len(task.services)} services), {row.turns} turns, "
          f"status {row.status}, score {row.score}")
    for name in ("provision", "executor", "judge"):
        print(f"  {name:<32} {getattr(wall, name):7.2f} s")
    judges = latency.get("supervisor", 0.0) + latency.get("user_simulator", 0.0)
    print(f"  {'  of which supervisor+sim calls':<32} {judges:7.2f} s")
    print(f"  {'  of which checks, snapshots':<32} {wall.judge - judges:7.2f} s")
    print(f"  {'rest (register, teardown, row)':<32} {wall.total - wall.provision - wall.executor - wall.judge:7.2f} s")
    total = wall.total
    print(f"  {'attempt total':<32} {total:7.2f} s")
    print(f"  {'claw own turn time (sum)':<32} {own:7.2f} s")
    print(f"  harness overhead {total - own:.2f} s; total / claw time = {total / max(own, 1e-9):.1f}x")


if __name__ == "__main__":
    main()
