"""One process of the shared-state race (test_shared_engine_state.py): THREADS threads that, once
the test's go-file appears, ask for every piece of shared engine state at once, a barrier before
each piece. Prints one JSON line: what each thread got, and every build it saw start.

    python -m tests.faults.engine_race_worker GO_FILE PARENT_REF
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

from clawmark.claws.nanobot import IMAGE_NAME, NANOBOT, VENV
from clawmark.claws.volumes import seeded_volume
from clawmark.runtime.images import ensure_derived_image
from clawmark.runtime.network import gateway_network, open_network
from clawmark.runtime.registry_proxy import registry_proxy

THREADS = 4
PROBE_DOCKERFILE = "ARG PARENT\nFROM ${PARENT}\nRUN echo built-once > /race-probe\n"


def one_thread(barrier: threading.Barrier, parent_ref: str, builds: list[str]) -> dict:
    got = {}
    barrier.wait()
    got["open"] = open_network()  # creates the isolated network first, then the open one, each guarded
    barrier.wait()
    got["gateway"] = gateway_network()
    barrier.wait()
    got["volume"] = seeded_volume(IMAGE_NAME, VENV, f"test -x {NANOBOT}")
    barrier.wait()
    got["image"] = ensure_derived_image("race-probe", parent_ref, None, PROBE_DOCKERFILE, progress=builds.append)
    barrier.wait()
    got["registry_proxy"] = registry_proxy()
    return got


def main(go_file: Path, parent_ref: str) -> None:
    barrier, builds, results, errors = threading.Barrier(THREADS, timeout=600), [], [], []

    def run() -> None:
        try:
            results.append(one_thread(barrier, parent_ref, builds))
        except Exception as exc:  # noqa: BLE001 - reported to the test, which fails on it
            errors.append(f"{type(exc).__name__}: {exc}")
            barrier.abort()

    threads = [threading.Thread(target=run) for _ in range(THREADS)]
    print("ready", flush=True)
    while not go_file.exists():
        time.sleep(0.01)
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"results": results, "errors": errors,
                      "builds": [line for line in builds if line.startswith("building ")]}), flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
