"""Bench: metrics, Pareto front and bootstrap over a million rows, and the report of a 10,000-row sweep.

    .venv/bin/python bench/analysis.py [--rows 1000000] [--report-rows 10000] [--n-boot 1000]

The floor is reading the table once (pyarrow → pandas with the results schema), measured in the
same run: each figure is printed as seconds and as a ratio to that floor. Best of 2 runs per
step (the machine is shared); CPU seconds printed beside wall seconds.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
import warnings
from pathlib import Path

import pyarrow.parquet as pq

# This file is named like the package it measures: keep bench/ off the import path.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from analysis.compare import all_pairs  # noqa: E402
from analysis.metrics import pass_at_1, pass_at_k  # noqa: E402
from analysis.pareto import cost_accuracy, front_share, pareto_front  # noqa: E402
from analysis.ranking import rank_stability  # noqa: E402
from analysis.report import build_report  # noqa: E402
from clawmark.results import conform, to_frame  # noqa: E402
from clawmark.results.synthetic import synthetic_table  # noqa: E402


def best_of(fn, repeat: int = 2):
    runs = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        value = fn()
        runs.append((time.perf_counter() - wall, time.process_time() - cpu, value))
    return min(runs, key=lambda r: r[0])


def line(name: str, wall: float, cpu: float, floor: float) -> None:
    print(f"{name:<34} {wall:8.2f} s wall {cpu:8.2f} s cpu   {wall / floor:6.1f}x floor", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--report-rows", type=int, default=10_000)
    parser.add_argument("--n-boot", type=int, default=1000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory(prefix="clawmark-bench-analysis-") as tmp:
        path = Path(tmp) / "rows.parquet"
        pq.write_table(synthetic_table(args.rows, n_tasks=400), path)
        floor, floor_cpu, frame = best_of(lambda: to_frame(conform(pq.read_table(path))))
        print(f"{args.rows:,} rows, {frame['claw'].nunique() * frame['model'].nunique()} configurations, "
              f"{frame['task_id'].nunique()} tasks, bootstrap draws {args.n_boot}")
        line("floor: read the table once", floor, floor_cpu, floor)
        steps = {
            "pass@1 + bootstrap CI": lambda: pass_at_1(frame, n_boot=args.n_boot),
            "pass@k / pass^k (k=2)": lambda: pass_at_k(frame, 2),
            "cost-accuracy + Pareto front": lambda: pareto_front(cost_accuracy(frame, n_boot=args.n_boot)),
            "front share (paired bootstrap)": lambda: front_share(frame, n_boot=args.n_boot),
            "rank stability (paired bootstrap)": lambda: rank_stability(frame, n_boot=args.n_boot),
            "all pairwise comparisons": lambda: all_pairs(frame, n_boot=args.n_boot),
        }
        total_wall = total_cpu = 0.0
        for name, step in steps.items():
            wall, cpu, _ = best_of(step)
            total_wall, total_cpu = total_wall + wall, total_cpu + cpu
            line(name, wall, cpu, floor)
        line("all metrics", total_wall, total_cpu, floor)
        small = to_frame(synthetic_table(args.report_rows, n_tasks=200, seed=1))
        wall, cpu, _ = best_of(lambda: build_report(small, Path(tmp) / "report", n_boot=args.n_boot))
        line(f"report of {args.report_rows:,} rows", wall, cpu, floor)
        print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
