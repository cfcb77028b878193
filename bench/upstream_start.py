"""Start rate of upstream tasks: does every runnable task of a UniClawBench tree get as far as its
first executor turn, and how long does set-up take?

    .venv/bin/python bench/upstream_start.py [TREE] [--tasks ID ...] [--limit N] [--web/--no-web]
                                             [--env-file FILE] [--out DIR]

TREE (default: the 43-task sample, ../shared/datasets/uniclawbench-sample) in either layout. The
tasks are those `clawmark catalog needs --runnable` names for this machine and these credentials
(web probed as it does, or forced by --web/--no-web); the others are listed with why, never
started. Each runnable task, one after another, as an attempt sets it up: the image (built when
missing), pre_exec on the host, the container, the package injected, the desktop (upstream-layout
GUI tasks: before the services, as upstream), the services, then a probe executor — a claw double
with no model: as the executor user it lists its sources and skills, checks the display and
`agent-browser` where the task has them, reaches a host the task names when it needs the web,
writes a deliverable, which is copied out as the judge would. Prints the seconds of each phase per
task and any environment-caused failure, typed (image, pre_exec, container, service, desktop,
network, probe); an exception of any other kind is clawmark's own bug (`harness`). Figures: the
count of environment-caused failures (goal 0) and the median provision time (pre_exec + container
+ injection, desktop and services; the image build is not counted). Writes `start.json` in --out.
Needs the Docker engine; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "uniclawbench-sample"
DEFAULT_TREE = Path(os.environ.get("CLAWMARK_UCB_SAMPLE", SAMPLE if SAMPLE.is_dir() else "/work/shared/datasets/uniclawbench-sample"))
PHASES = ("image", "pre_exec", "container", "desktop", "services", "probe")
PROVISION = ("pre_exec", "container", "desktop", "services")
NETWORK_SIGNS = ("could not resolve", "temporary failure in name resolution", "failed to connect", "connection refused",
                 "network is unreachable", "connection timed out", "unable to access", "name or service not known")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--tasks", nargs="+", default=None, help="only these task ids (of the runnable ones)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many tasks")
    parser.add_argument("--web", action=argparse.BooleanOptionalAction, default=None,
                        help="does this machine reach the live web (default: probed as `catalog needs` does)")
    parser.add_argument("--env-file", type=Path, default=None, help="credentials, KEY=VALUE (upstream's privacy env)")
    parser.add_argument("--out", type=Path, default=None, help="work folder (default: a temporary one)")
    args = parser.parse_args()
    if not args.tree.is_dir():
        print(f"no task tree at {args.tree}: nothing to measure (give TREE or CLAWMARK_UCB_SAMPLE)")
        return 0
    from clawmark.catalog.task_credentials import user_credentials
    from clawmark.catalog.needs import Machine, tree_needs
    from clawmark.cli.catalog import load_tree, reaches_web

    tasks = load_tree(args.tree)
    credentials = user_credentials(args.env_file)
    machine = Machine(web=reaches_web() if args.web is None else args.web)
    needs = {n.task_id: n for n in tree_needs(tasks, credentials)}
    runnable = spread([t for t in tasks if needs[t.task_id].runnable_on(machine)
                       and (args.tasks is None or t.task_id in args.tasks)])[:args.limit]
    out = args.out or Path(tempfile.mkdtemp(prefix="clawmark-upstream-start-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"{args.tree}: {len(tasks)} tasks, {len(runnable)} started (web {'yes' if machine.web else 'no'}); "
          f"not runnable: {_not_runnable_counts(needs.values(), machine)}", flush=True)
    results = []
    for task in runnable:
        result = start_one(task, needs[task.task_id], credentials, machine, out / "logs" / task.task_id)
        results.append(result)
        print(_line(result), flush=True)
        (out / "start.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    _summary(results)
    print(f"details in {out / 'start.json'}")
    return 0


def spread(tasks: list) -> list:
    """Round-robin over categories: a run cut short (or --limit) still covers every category."""
    by_category: dict[str, list] = {}
    for task in tasks:
        by_category.setdefault(task.spec.category, []).append(task)
    rounds = max((len(group) for group in by_category.values()), default=0)
    return [group[i] for i in range(rounds) for group in by_category.values() if i < len(group)]


def start_one(task, needs, credentials: dict, machine, logs: Path) -> dict:
    """One task from image to the probe turn; phase seconds and the failure, typed."""
    from clawmark.catalog.task_credentials import executor_credentials
    from clawmark.taskenv import TaskEnv, TaskEnvConfig
    from clawmark.taskenv.headed import HeadedRun, task_image

    result: dict = {"task": task.task_id, "seconds": {}, "failure": None}
    seconds = result["seconds"]
    phase = "image"
    try:
        began = time.monotonic()
        image = task_image(task, None)
        result["image"] = (image or "workstation").split("/")[-1]
        seconds["image"] = time.monotonic() - began
        values, _gaps = executor_credentials(task, credentials, False)
        headed = HeadedRun(task, logs / "artifacts")
        desktop = _timed(seconds, "desktop", headed.start_desktop)
        env = TaskEnv(task, TaskEnvConfig(image=image, network_policy="full", credentials=values,
                                          labels={"clawmark.bench": "upstream-start"}),
                      logs, before_services=[desktop] if headed.desktop_first else [])
        try:
            phase = "pre_exec"
            (_timed(seconds, "pre_exec", env.pre_exec) if task.pre_exec_scripts else env.pre_exec)()
            phase = "container"
            sandbox = _timed(seconds, "container", env.start)()
            phase = "services"
            began = time.monotonic()
            env.prepare()
            seconds["services"] = time.monotonic() - began - seconds.get("desktop", 0.0)  # and injection
            phase = "desktop"
            (_timed(seconds, "desktop", headed.begin) if headed.enabled else headed.begin)(sandbox)
            phase = "probe"
            _timed(seconds, "probe", probe_turn)(env, sandbox, needs, logs)
        finally:
            env.__exit__(None, None, None)
    except Exception as exc:  # noqa: BLE001 - every failure is a finding, typed and reported per task
        result["failure"] = {"type": failure_type(exc, phase, machine), "phase": phase,
                             "error": f"{type(exc).__name__}: {str(exc)[:400]}"}
    result["provision_s"] = sum(seconds.get(p, 0.0) for p in PROVISION)
    return result


def probe_turn(env, sandbox, needs, logs: Path) -> None:
    """What a claw does first, as the executor user: look at its inputs and tools, write a deliverable."""
    from clawmark.taskenv.desktop import DISPLAY

    checks = ["test -d /tmp_workspace/clawbench/sources", "ls /root/skills >/dev/null",
              "echo probe > /tmp_workspace/results/probe.txt"]
    checks += [f"test -d /root/skills/{name.removeprefix('skills/').strip('/')}" for name in env.task.spec.skills]
    if needs.gui:
        checks.append(f"xdpyinfo -display {DISPLAY} >/dev/null")
    if needs.web:
        checks.append("command -v agent-browser >/dev/null")
        if needs.hosts:
            checks.append(f"curl -sS -o /dev/null --max-time 20 https://{needs.hosts[0]}/")
    for check in checks:
        done = sandbox.exec(["bash", "-c", check], timeout_s=120)
        if done.exit_code != 0:
            raise ProbeFailed(check, (done.stderr or done.stdout).strip()[:300])
    if "probe.txt" not in env.snapshot_results(logs / "results"):
        raise ProbeFailed("copy out /tmp_workspace/results", "probe.txt did not come out")


class ProbeFailed(Exception):
    def __init__(self, check: str, output: str) -> None:
        super().__init__(f"{check!r} failed: {output}")
        self.check = check


def failure_type(exc: BaseException, phase: str, machine) -> str:
    """image, pre_exec, container, service, desktop, network, probe — or harness (clawmark's bug)."""
    from clawmark.runtime.errors import ImageMissing, RuntimeFailure
    from clawmark.taskenv.desktop import DesktopFailed
    from clawmark.taskenv.errors import PreExecFailed, ServiceFailed

    text = str(exc).lower()
    log = getattr(exc, "log", None)
    if log is not None and Path(log).is_file():
        text += Path(log).read_text(errors="replace")[-4000:].lower()
    if isinstance(exc, (ServiceFailed, PreExecFailed, ProbeFailed)) and any(s in text for s in NETWORK_SIGNS):
        return "network"
    kinds = ((ImageMissing, "image"), (PreExecFailed, "pre_exec"), (ServiceFailed, "service"),
             (DesktopFailed, "desktop"), (ProbeFailed, "probe"), (RuntimeFailure, "container"))
    return next((name for cls, name in kinds if isinstance(exc, cls)), "harness")


def _timed(seconds: dict, name: str, action):
    def run(*args):
        began = time.monotonic()
        try:
            return action(*args)
        finally:
            seconds[name] = seconds.get(name, 0.0) + time.monotonic() - began
    return run


def _not_runnable_counts(needs, machine) -> dict[str, int]:
    reasons: dict[str, int] = {}
    for n in needs:
        if n.runnable_on(machine):
            continue
        why = ("missing_content" if n.missing_content else "credentials" if n.credentials_missing
               else "web" if (n.web or n.installers) and not machine.web else "other")
        reasons[why] = reasons.get(why, 0) + 1
    return reasons


def _line(r: dict) -> str:
    phases = " ".join(f"{p}={r['seconds'][p]:.1f}" for p in PHASES if p in r["seconds"])
    failure = r["failure"]
    tail = f"  FAILED {failure['type']} ({failure['phase']}): {failure['error'][:200]}" if failure else "  ok"
    return f"{r['task']} [{r.get('image', '?')}] {phases} provision={r['provision_s']:.1f}{tail}"


def _summary(results: list[dict]) -> None:
    print("\nphase      tasks  median_s  max_s")
    for phase in (*PHASES, "provision"):
        values = [r["provision_s"] if phase == "provision" else r["seconds"][phase] for r in results
                  if phase == "provision" and not r["failure"] or phase in r["seconds"]]
        if values:
            print(f"{phase:<10} {len(values):>5}  {statistics.median(values):>8.1f}  {max(values):>5.1f}")
    by_type: dict[str, int] = {}
    for r in results:
        if r["failure"]:
            by_type[r["failure"]["type"]] = by_type.get(r["failure"]["type"], 0) + 1
    environment = sum(n for kind, n in by_type.items() if kind != "harness")
    print(f"\nstarted {len(results)}, reached the first turn {sum(not r['failure'] for r in results)}; "
          f"failures by type: {by_type or 'none'}")
    print(f"environment-caused failures: {environment}; clawmark bugs (harness): {by_type.get('harness', 0)}")


if __name__ == "__main__":
    sys.exit(main())
