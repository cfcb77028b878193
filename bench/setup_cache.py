"""Set-up cache: an upstream task whose services install packages, provisioned three times in
one run, as an attempt does (a GUI task's desktop included): once with the cache off (every attempt's cost before it), then attempt 1 (captures the
set-up) and attempt 2 (starts from it). The executor's first-turn view (its sources and skills
with their digests, the installed tools and packages, its environment) must be equal in attempt
1 and attempt 2, and in the uncached one: the claw sees the same world.

    .venv/bin/python bench/setup_cache.py [--task TASK_ID] [TREE]

Default: task_201_39_music_analysis of the sample (its oneshot service apt-updates and
pip-installs numpy and scipy). Needs the Docker engine and the package registries (apt). Goal: attempt 2 <= 0.2 x
attempt 1. The last line reads `ratio <attempt 2 / attempt 1>`; exit 1 when the views differ.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "uniclawbench-sample"
DEFAULT_TREE = Path(os.environ.get("CLAWMARK_UCB_SAMPLE", SAMPLE if SAMPLE.is_dir() else "/work/shared/datasets/uniclawbench-sample"))
DEFAULT_TASK = "task_201_39_music_analysis"
GOAL = 0.2
# What a claw's first turn looks at: every file it is given, the tools set-up installed, its environment.
FIRST_TURN = [
    "find /tmp_workspace /root/skills -xdev -path /tmp_workspace/clawbench/logs -prune -o -type f "
    "-exec md5sum {} + | sort",
    "command -v jq curl; jq --version",
    "dpkg-query -W -f '${Package} ${Version}\\n' | md5sum",
    "ls -l /usr/local/bin | md5sum",
    "python3 -m pip list --format=freeze 2>/dev/null | md5sum",
    "env | grep -v -e '^HOSTNAME=' -e '^PWD=' -e '^SHLVL=' -e '^_=' -e '^CLAWMARK_EXEC_ID=' | sort",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--task", default=DEFAULT_TASK)
    args = parser.parse_args()
    if not args.tree.is_dir():
        print(f"no task tree at {args.tree}: nothing to measure (give TREE or CLAWMARK_UCB_SAMPLE)")
        return 0
    from clawmark.cli.catalog import load_tree

    task = next((t for t in load_tree(args.tree) if t.task_id == args.task), None)
    if task is None:
        print(f"{args.task}: not in {args.tree}")
        return 2
    work = Path(tempfile.mkdtemp(prefix="clawmark-setup-cache-bench-"))
    os.environ["CLAWMARK_HOME"] = str(work / "home")  # no earlier capture and no remembered verdict
    uncached = provision(task, work / "uncached", cache=False)
    first = provision(task, work / "attempt1", cache=True)
    if first["state"] == "hit":  # captured by an earlier run on this engine: measure a capture
        drop(first["key"])
        first = provision(task, work / "attempt1b", cache=True)
    second = provision(task, work / "attempt2", cache=True)
    drop(first["key"])
    for name, run in (("cache off", uncached), ("attempt 1", first), ("attempt 2", second)):
        print(f"{name:10} provision {run['seconds']:7.2f} s  setup_cache={run['state']}")
    same = first["view"] == second["view"] == uncached["view"]
    print(f"first-turn view equal in all three: {'yes' if same else 'NO'}")
    if not same:
        for line in sorted(set(first["view"].splitlines()) ^ set(second["view"].splitlines()))[:20]:
            print(f"  differs: {line[:160]}")
    ratio = second["seconds"] / first["seconds"]
    print(f"attempt 2 / cache off: {second['seconds'] / uncached['seconds']:.3f}; goal attempt 2 <= {GOAL} x attempt 1: "
          f"{'met' if ratio <= GOAL else 'missed'}")
    print(f"ratio {ratio:.3f}")
    return 0 if same else 1


def provision(task, folder: Path, cache: bool) -> dict:
    """pre_exec, container, injection and services of one attempt, timed; then its first-turn view."""
    from clawmark.taskenv import TaskEnv, TaskEnvConfig
    from clawmark.taskenv.headed import HeadedRun, task_image

    headed = HeadedRun(task, folder / "artifacts")  # a GUI task's desktop, before its services as upstream
    config = TaskEnvConfig(image=task_image(task, None), network_policy="full", cache_setup=cache,
                           labels={"clawmark.bench": "setup-cache"})
    env = TaskEnv(task, config, folder / "logs", before_services=headed.before_services())
    began = time.monotonic()
    try:
        env.pre_exec()
        sandbox = env.start()
        env.prepare()
        headed.begin(sandbox)
        seconds = time.monotonic() - began
        view = "\n".join(f"$ {cmd}\n{sandbox.exec(['bash', '-c', cmd], timeout_s=120).stdout}" for cmd in FIRST_TURN)
    finally:
        env.__exit__(None, None, None)
    return {"seconds": seconds, "view": view, "state": env.setup_state["setup_cache"],
            "key": env.setup_state["setup_cache_key"]}


def drop(key: str | None) -> None:
    from clawmark.runtime.engine import shared_client
    from clawmark.taskenv.setup_cache import REPOSITORY

    import docker

    try:
        if key:
            shared_client().images.remove(f"{REPOSITORY}:{key}", force=True)
    except docker.errors.ImageNotFound:  # never published (the set-up proved not cacheable)
        pass


if __name__ == "__main__":
    raise SystemExit(main())
