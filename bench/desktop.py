"""Bench: what the desktop costs — its image (build time, size) and its start-up per attempt.

    .venv/bin/python bench/desktop.py [--repeats 3] [--skip-build]

1. Build: the desktop recipe built from scratch on the current workstation image (a cache-busting
   first layer, so every layer of the recipe really runs; the host's network for apt), timed; its
   size and what it adds over the workstation. The bench image is removed afterwards (the
   recipe's own image is untouched).
2. Start-up per attempt, measured in the same run: a task container made ready for its first
   turn (container, layout, injection, a background service) for a task that is not headed
   (workstation image) vs a headed one (desktop image, then the desktop with Chromium/CDP up as
   a headed attempt starts it), each `--repeats` times alternately; medians, the difference and
   the ratio against the non-headed floor, and the desktop's resident memory (RSS summed over
   its processes, so pages Chromium's processes share count once per process: an upper bound).
The load average is printed: two cores shared with other work make absolute times drift, the
ratio drifts less.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from clawmark.taskenv.desktop import DESKTOP_RECIPE  # noqa: E402

GB = 1e9
SERVICE = {"name": "site", "path": "site", "start": "python3 -m http.server 8099 --bind 127.0.0.1"}


def build_once() -> dict:
    """Build the desktop recipe's Dockerfile from scratch on the workstation; time and size."""
    import shutil

    from clawmark.runtime.engine import docker_client
    from clawmark.runtime.images import ensure_image
    from clawmark.runtime.recipes import get_recipe

    recipe = get_recipe(DESKTOP_RECIPE)
    parent = ensure_image(recipe.parent)
    lines = recipe.dockerfile.read_text().splitlines()
    first_from = next(i for i, line in enumerate(lines) if line.startswith("FROM"))
    lines.insert(first_from + 1, f"RUN echo clawmark-bench-{time.time_ns()} > /dev/null")  # nothing cached below
    client, ref = docker_client(), f"clawmark-bench/desktop:{os.getpid()}"
    with tempfile.TemporaryDirectory(prefix="clawmark-bench-build-") as context:
        shutil.copytree(recipe.folder, context, dirs_exist_ok=True)
        (Path(context) / "Dockerfile").write_text("\n".join(lines) + "\n")
        started = time.monotonic()
        # The host's network, like `docker build --network host`: the build needs only the apt mirror.
        client.images.build(path=context, tag=ref, buildargs={"PARENT": parent}, rm=True, forcerm=True,
                            network_mode="host", labels={"clawmark.bench": "desktop"})
        seconds = time.monotonic() - started
    size, parent_size = client.images.get(ref).attrs["Size"], client.images.get(parent).attrs["Size"]
    client.images.remove(ref, noprune=False)
    return {"build_s": round(seconds, 1), "size_gb": round(size / GB, 2), "adds_gb": round((size - parent_size) / GB, 2),
            "workstation_gb": round(parent_size / GB, 2)}


def start_once(root: Path, headed: bool, index: int) -> tuple[float, int | None]:
    """Seconds until the first turn could start (desktop included when headed); desktop RSS KiB."""
    from clawmark.catalog import load_task
    from clawmark.taskenv import TaskEnv, TaskEnvConfig
    from clawmark.taskenv.headed import HeadedRun, task_image

    task = load_task(_package(root / f"{'headed' if headed else 'plain'}_{index}", headed))
    started = time.monotonic()
    config = TaskEnvConfig(image=task_image(task, None), network_policy="none", labels={"clawmark.bench": "desktop"})
    with TaskEnv(task, config, root / f"logs-{headed}-{index}") as sandbox:
        HeadedRun(task, root / f"artifacts-{headed}-{index}").begin(sandbox)  # nothing when not headed
        seconds = time.monotonic() - started
        rss = _desktop_rss_kib(sandbox) if headed else None
    return seconds, rss


def _desktop_rss_kib(sandbox) -> int:
    names = "Xvfb openbox tint2 x11vnc websockify chromium"
    script = f"ps -o rss= -C {','.join(names.split())} | awk '{{s+=$1}} END {{print s}}'"
    out = sandbox.exec(["sh", "-c", script], timeout_s=30).stdout.strip()
    return int(out or 0)


def _package(folder: Path, headed: bool) -> Path:
    import yaml

    (folder / "references").mkdir(parents=True)
    (folder / "references" / "eval_rule.md").write_text("# rule\n## 5. Checkpoint Rubric\n- 1.0 Done: done.\n")
    (folder / "sources").mkdir()
    (folder / "sources" / "data.csv").write_text("a,b\n1,2\n")
    (folder / "services" / "site").mkdir(parents=True)
    (folder / "services" / "site" / "index.html").write_text("<h1>hello</h1>\n")
    spec = {"task_id": folder.name, "category": "105_cross_platform", "task": "Do it.",
            "references": ["references/eval_rule.md"], "services": [SERVICE], "headed": headed}
    (folder / "task.yaml").write_text(yaml.safe_dump(spec))
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-build", action="store_true", help="only the start-up part")
    args = parser.parse_args()
    from clawmark.runtime.images import ensure_image
    from clawmark.taskenv.config import WORKSTATION_RECIPE

    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if not args.skip_build:
        built = build_once()
        print(f"desktop image: built from scratch in {built['build_s']} s; {built['size_gb']} GB "
              f"(+{built['adds_gb']} GB on the {built['workstation_gb']} GB workstation)")
    ensure_image(WORKSTATION_RECIPE), ensure_image(DESKTOP_RECIPE)
    plain, headed, rss = [], [], []
    with tempfile.TemporaryDirectory(prefix="clawmark-bench-desktop-") as tmp:
        start_once(Path(tmp) / "warm", False, 0)  # first container of a run pays for caches
        for index in range(args.repeats):
            plain.append(start_once(Path(tmp), False, index)[0])
            seconds, kib = start_once(Path(tmp), True, index)
            headed.append(seconds)
            rss.append(kib)
    floor, cost = statistics.median(plain), statistics.median(headed)
    print(f"start-up to the first turn, median of {args.repeats}: not headed {floor:.2f} s "
          f"({', '.join(f'{s:.2f}' for s in plain)}); headed {cost:.2f} s ({', '.join(f'{s:.2f}' for s in headed)})")
    print(f"the desktop adds {cost - floor:.2f} s per attempt ({cost / floor:.2f}x the non-headed floor); "
          f"resident with Chromium: {statistics.median(rss) / 1024:.0f} MiB")
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
