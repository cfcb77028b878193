"""Run every bench script in this folder (except this one), one after another, and show
their output. Exit non-zero if any script failed. Usage: python bench/run_all.py"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TIMEOUT_S = 1800


def main() -> int:
    scripts = sorted(p for p in HERE.glob("*.py") if p.name != Path(__file__).name and not p.name.startswith("_"))
    failed = []
    for script in scripts:
        print(f"=== {script.name}", flush=True)
        started = time.monotonic()
        try:
            code = subprocess.run([sys.executable, str(script)], cwd=HERE.parent, timeout=TIMEOUT_S).returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
        print(f"=== {script.name}: exit {code} in {time.monotonic() - started:.1f}s\n", flush=True)
        if code != 0:
            failed.append(script.name)
    print(f"{len(scripts)} bench scripts, {len(failed)} failed" + (f": {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
