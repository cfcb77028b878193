"""Sandbox overhead: provision + `exec true` + teardown vs `docker run --rm IMAGE true`.

Both are measured in the same run on the same image; prints both medians and the ratio
(target <= 1.5x). Usage: python bench/sandbox.py [--iterations N] [--image NAME]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

from clawmark.runtime.images import ensure_image
from clawmark.runtime.sandbox import Sandbox, SandboxConfig

TARGET_RATIO = 1.5


def sandbox_round(image: str) -> float:
    started = time.perf_counter()
    with Sandbox.provision(SandboxConfig(image=image, labels={"clawmark.bench": "sandbox"})) as sb:
        result = sb.exec(["true"], timeout_s=60)
    elapsed = time.perf_counter() - started
    if result.exit_code != 0:
        raise SystemExit(f"exec true failed: {result}")
    return elapsed


def docker_run_round(image: str) -> float:
    started = time.perf_counter()
    subprocess.run(["docker", "run", "--rm", image, "true"], check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=15)
    parser.add_argument("--image", default="base", help="recipe name")
    args = parser.parse_args()
    image = ensure_image(args.image)
    sandbox_round(image)  # warm caches (client, network, page cache) before measuring
    docker_run_round(image)
    ours, floor = [], []
    for _ in range(args.iterations):  # interleaved so load changes hit both alike
        ours.append(sandbox_round(image))
        floor.append(docker_run_round(image))
    ratio = statistics.median(ours) / statistics.median(floor)
    print(f"sandbox bench on {image}, {args.iterations} iterations each")
    print(f"  sandbox provision+exec true+teardown  median {statistics.median(ours) * 1000:7.1f} ms")
    print(f"  docker run --rm IMAGE true (floor)    median {statistics.median(floor) * 1000:7.1f} ms")
    print(f"  ratio {ratio:.2f}x (target <= {TARGET_RATIO}x): {'OK' if ratio <= TARGET_RATIO else 'SLOWER THAN TARGET'}")


if __name__ == "__main__":
    main()
