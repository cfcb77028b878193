"""Acceptance: real upstream UniClawBench GUI tasks load with our catalog and their runtime starts.

    .venv/bin/python bench/upstream_headed.py [--mirror GITDIR] [--out DIR] [--tasks ID ...]

The tasks are copied from a git mirror of the public HKU-MMLab/UniClawBench repository (the
`fetch` tool leaves one in /work/.mirror/; `git clone` works too) into a temporary folder
OUTSIDE this repository, in upstream's own layout (`tasks/<category>/<id>.yaml`,
`injection/<category>/<id>/`), never into the repo. For each task: load it (warnings shown),
say whether `headed: auto` resolved to the desktop and why (`gui_need`), then start its
runtime for real — the desktop image when it wants one, sources / skills / services injected,
services run (upstream's GUI set-ups apt-get their apps: network `full`), the desktop up with
Chromium/CDP, one screenshot — and tear it down. Prints one line per task and writes
`acceptance.json` in --out. Needs the Docker engine and the network to Debian's mirror; it is
not a test (CI cannot reach GitHub).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MIRROR = Path("/work/.mirror/HKU-MMLab+UniClawBench/repo")
# Four GUI tasks (both languages, LibreOffice / calendar / file manager set-ups) and one web
# task whose `headed: auto` declares no GUI need (it must run without the desktop).
DEFAULT_TASKS = ["task_105_36_receipt_packet_gui_audit", "task_105_03_rust_tokyo_meetup_gui_calendar",
                 "task_205_06_rust_meetup_route_gui_note", "task_205_02_week32_receipts_gui_calc_writer",
                 "task_105_10_tokyo_web_plan"]


def copy_tasks(mirror: Path, task_ids: list[str], out: Path) -> list[Path]:
    """Each task's YAML and injection folder from the mirror's HEAD into `out`; the YAML paths."""
    listing = _git(mirror, "ls-tree", "-r", "--name-only", "HEAD", "tasks").splitlines()
    yamls = []
    for task_id in task_ids:
        path = next((p for p in listing if Path(p).stem == task_id), None)
        if path is None:
            raise SystemExit(f"{task_id}: not in {mirror} (tasks/<category>/{task_id}.yaml)")
        category = Path(path).parent.name
        archive = subprocess.run(["git", f"--git-dir={mirror}", "archive", "HEAD", path,
                                  f"injection/{category}/{task_id}"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
        yamls.append(out / path)
    return yamls


def start_runtime(task, logs: Path) -> dict:
    """The task's runtime up (and down again), timed; what was injected and what the screen showed."""
    from clawmark.taskenv import TaskEnv, TaskEnvConfig
    from clawmark.taskenv.desktop import screenshot, start_desktop, wants_desktop
    from clawmark.taskenv.headed import task_image

    report: dict = {}
    started = time.monotonic()
    image = task_image(task, None)  # the desktop image for a GUI task, else the workstation
    report["image"] = image or "workstation"
    env = TaskEnv(task, TaskEnvConfig(image=image, network_policy="full",
                                      labels={"clawmark.bench": "upstream-headed"}), logs)
    with env as sandbox:
        report["provision_s"] = round(time.monotonic() - started, 1)  # container + injection + services
        record = json.loads((logs / "taskenv.json").read_text())
        report.update(sources=len(record["sources"]), skills=record["skills"], services=sorted(record["services"]))
        if wants_desktop(task):
            desktop = start_desktop(sandbox, browser=True)
            report["desktop_s"] = desktop.start_s
            shot = screenshot(sandbox, logs / "screen.png")
            report["screenshot_bytes"] = shot.stat().st_size
        else:
            probe = sandbox.exec("command -v Xvfb >/dev/null && echo has-xvfb || echo no-xvfb", timeout_s=30)
            report["desktop"] = probe.stdout.strip()
        report["service_state"] = _service_state(sandbox)
    report["total_s"] = round(time.monotonic() - started, 1)
    return report


def _service_state(sandbox) -> dict:
    """What upstream's set-up services left in service_state/: each JSON file's `status`, if any."""
    script = ("cd /tmp_workspace/clawbench/service_state 2>/dev/null || exit 0; for f in *; do "
              "printf '%s\\t' \"$f\"; python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(\"status\", \"-\"))' "
              "\"$f\" 2>/dev/null || echo -; done")
    out = sandbox.exec(["sh", "-c", script], timeout_s=60).stdout
    return dict(line.split("\t", 1) for line in out.splitlines() if "\t" in line)


def run_one(yaml_path: Path, out: Path) -> dict:
    from clawmark.catalog import load_task
    from clawmark.taskenv.desktop import gui_need, wants_desktop

    result: dict = {"task": yaml_path.stem}
    try:
        task = load_task(yaml_path)
    except Exception as exc:  # noqa: BLE001 - a refusal is a finding, reported per task
        return {**result, "loaded": False, "error": f"{type(exc).__name__}: {exc}"}
    result.update(loaded=True, warnings=list(getattr(task, "warnings", [])), headed=str(task.spec.headed),
                  gui_need=gui_need(task), desktop=wants_desktop(task))
    try:
        result["runtime"] = start_runtime(task, out / "logs" / task.task_id)
        result["started"] = True
    except Exception as exc:  # noqa: BLE001
        result.update(started=False, error=f"{type(exc).__name__}: {str(exc)[:600]}")
        (out / "logs" / task.task_id).mkdir(parents=True, exist_ok=True)
        (out / "logs" / task.task_id / "error.txt").write_text(traceback.format_exc())
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, default=MIRROR, help="git dir of a UniClawBench clone or mirror")
    parser.add_argument("--out", type=Path, default=None, help="work folder (outside the repo); default a temp dir")
    parser.add_argument("--tasks", nargs="+", default=DEFAULT_TASKS)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="clawmark-upstream-"))
    repo = Path(__file__).resolve().parents[1]
    if out.resolve().is_relative_to(repo):
        raise SystemExit(f"--out {out} lies in the repository: upstream tasks are never copied into it")
    out.mkdir(parents=True, exist_ok=True)
    print(f"upstream {_git(args.mirror, 'rev-parse', '--short', 'HEAD').strip()} -> {out}")
    results = [run_one(path, out) for path in copy_tasks(args.mirror, args.tasks, out)]
    for r in results:
        rt = r.get("runtime", {})
        print(f"{r['task']}: loaded={r['loaded']} desktop={r.get('desktop')} ({r.get('gui_need')}) "
              f"started={r.get('started')} provision={rt.get('provision_s')}s desktop_up={rt.get('desktop_s')}s "
              f"sources={rt.get('sources')} services={rt.get('services')} state={rt.get('service_state')} {r.get('error', '')}")
    (out / "acceptance.json").write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    print(f"loaded {sum(r['loaded'] for r in results)}/{len(results)}, "
          f"started {sum(bool(r.get('started')) for r in results)}/{len(results)}; details in {out / 'acceptance.json'}")


def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={mirror}", *args], check=True, capture_output=True, text=True).stdout


if __name__ == "__main__":
    main()
