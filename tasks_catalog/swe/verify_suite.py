"""Check every bundled instance for real: run its own eval_script at base (+ test_patch) and at
base + gold patch, parse the log with swebench's parser, and compare with the row's test lists.

    .venv/bin/python tasks_catalog/swe/verify_suite.py --runtime-images   # clawmark/<lang> images
    .venv/bin/python tasks_catalog/swe/verify_suite.py --image python=clawmark/python:abc ...
    .venv/bin/python tasks_catalog/swe/verify_suite.py --host   # toolchains on PATH (iteration)

Checks per instance (each run twice, the parsed results must be identical):
  before (base + test_patch): every FAIL_TO_PASS test FAILED, every PASS_TO_PASS test PASSED,
      the parsed tests are exactly FAIL_TO_PASS + PASS_TO_PASS, exit code non-zero;
  after (base + gold patch + test_patch): every listed test PASSED, nothing else, exit code 0.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

SUITE_DIR = Path(__file__).resolve().parent
START, END = ">>>>> Start Test Output", ">>>>> End Test Output"
EXIT_CODE = re.compile(r"^clawmark:test_exit_code=(\d+)$", re.M)
RUN_TIMEOUT_S = 600
HOST_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"  # Debian toolchains, not pyenv/rustup shims


@dataclass
class RunResult:
    statuses: dict[str, str]
    exit_code: int | None
    log: str


@dataclass
class Verdict:
    instance_id: str
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def load_rows(path: Path = SUITE_DIR / "instances.jsonl") -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def parse_statuses(row: dict, log: str) -> dict[str, str]:
    """Test name -> status via swebench's own parser, on the text between the markers."""
    from swebench.harness.log_parsers import PARSER_REGISTRY

    body = log.split(f"\n{START}\n", 1)[-1].split(f"\n{END}\n", 1)[0]
    return PARSER_REGISTRY[row["log_parser"]](body, None)


def checkout(row: dict, dest: Path, apply_gold: bool) -> None:
    """Clone the bundle at base_commit (history kept, as before cleanup) and maybe apply gold."""
    bundle = SUITE_DIR / row["repo_bundle"]
    subprocess.run(["git", "clone", "-q", str(bundle), str(dest)], check=True, timeout=60)
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", row["base_commit"]], check=True, timeout=60)
    if apply_gold:
        subprocess.run(["git", "-C", str(dest), "apply", "-"], input=row["patch"], text=True,
                       check=True, timeout=60)


def run_on_host(row: dict, testbed: Path) -> str:
    script = row["eval_script"].replace("/testbed", str(testbed))
    env = {"PATH": HOST_PATH, "HOME": str(testbed.parent), "LANG": "C.UTF-8"}
    done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S)
    return done.stdout + done.stderr


def run_in_docker(row: dict, testbed: Path, image: str) -> str:
    import docker

    client = docker.from_env()
    script = testbed.parent / "eval.sh"
    script.write_text(row["eval_script"], encoding="utf-8")
    container = client.containers.run(
        image, ["bash", "/eval.sh"], detach=True, network_mode="none",
        volumes={str(testbed): {"bind": "/testbed", "mode": "rw"},
                 str(script): {"bind": "/eval.sh", "mode": "ro"}},
        labels={"clawmark.managed": "true", "clawmark.role": "swe-suite-verify"})
    try:
        container.wait(timeout=RUN_TIMEOUT_S)
        return container.logs(stdout=True, stderr=True).decode("utf-8", "replace")
    finally:
        container.remove(force=True)


def run_once(row: dict, apply_gold: bool, image: str | None) -> RunResult:
    with tempfile.TemporaryDirectory(prefix="swe-verify-") as tmp:
        testbed = Path(tmp) / "testbed"
        checkout(row, testbed, apply_gold)
        log = run_in_docker(row, testbed, image) if image else run_on_host(row, testbed)
        if image:  # files written by the container are root's; make the temp dir removable
            subprocess.run(["chmod", "-R", "u+rwX", tmp], check=False)
    return run_result(row, log)


def run_result(row: dict, log: str) -> RunResult:
    codes = EXIT_CODE.findall(log)
    return RunResult(parse_statuses(row, log), int(codes[-1]) if codes else None, log)


def check_instance(row: dict, image: str | None) -> Verdict:
    verdict = Verdict(row["instance_id"])
    for stage, gold in (("before", False), ("after", True)):
        first, second = run_once(row, gold, image), run_once(row, gold, image)
        verdict.problems += stage_problems(row, gold, first, second)
    return verdict


def stage_problems(row: dict, gold: bool, first: RunResult, second: RunResult) -> list[str]:
    """What is wrong with two runs of one stage (without gold: before; with gold: after)."""
    stage = "after" if gold else "before"
    f2p, p2p = set(row["FAIL_TO_PASS"]), set(row["PASS_TO_PASS"])
    got, problems = first.statuses, []
    if first.statuses != second.statuses:
        problems.append(f"{stage}: results differ between two runs")
    if set(got) != f2p | p2p:
        problems.append(f"{stage}: parsed tests {sorted(set(got) ^ (f2p | p2p))} differ from the lists")
    want_f2p = "PASSED" if gold else "FAILED"
    problems += [f"{stage}: {t} is {got.get(t, 'missing')}, want {want_f2p}"
                 for t in sorted(f2p) if got.get(t) != want_f2p]
    problems += [f"{stage}: {t} is {got.get(t, 'missing')}, want PASSED"
                 for t in sorted(p2p) if got.get(t) != "PASSED"]
    if (first.exit_code == 0) != gold:
        problems.append(f"{stage}: test exit code {first.exit_code}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", action="append", default=[], help="LANG=IMAGE (python, javascript, go, rust)")
    parser.add_argument("--host", action="store_true", help="run on the host toolchains instead of Docker")
    parser.add_argument("--runtime-images", action="store_true",
                        help="use the clawmark runtime image named by each row's runtime_image (built if missing)")
    parser.add_argument("--only", default="", help="substring of instance ids to check")
    args = parser.parse_args()
    images = dict(item.split("=", 1) for item in args.image)
    failed = 0
    for row in load_rows():
        if args.only not in row["instance_id"]:
            continue
        image = None if args.host else images.get(row["language"])
        if args.runtime_images:
            from clawmark.runtime.images import ensure_image

            image = ensure_image(row["runtime_image"])
        if not args.host and image is None:
            print(f"SKIP {row['instance_id']}: no --image for {row['language']}")
            continue
        verdict = check_instance(row, image)
        failed += not verdict.ok
        print(("OK   " if verdict.ok else "FAIL ") + row["instance_id"] + "".join(f"\n     {p}" for p in verdict.problems))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
