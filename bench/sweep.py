"""Bench: what orchestration costs per cell, slots vs waves, and how fast a large sweep resumes.

    .venv/bin/python bench/sweep.py [--cells 6] [--skip-docker]

One command runs all four (Docker needs an engine and the python/node images; the first flow
starts Prefect's temporary server in a private PREFECT_HOME). The load average is printed at the
start and the end: on a shared machine the Docker figures move with it.

1. Overhead per cell: a sweep of `nop` cells through Prefect + Docker (provision, history strip,
   claw, teardown, row) vs the raw sandbox floor (provision + `exec true` + teardown) measured in
   the same run; and the same per cell apart from the sweep's own start and end (the median time
   from one cell's start to the next's).
2. Cells per minute at concurrency 1, 2, 4, with waves (a wave waits for its slowest cell: the
   old scheduler) vs slots (the next cell starts when one finishes), on a mix of short `nop` and
   long `oracle` cells (oracle evaluates its patch).
3. A finished 500-cell sweep deciding that nothing is left (plan + committed rows), per-cell row
   files and compacted (target < 10 s).
4. A 10,000-cell `nop` sweep planned cold and resumed against 10,000 committed rows (planning
   time, store read time).
5. What a pool cell run spends finding its cell in that sweep: the whole grid planned (as it once
   did) vs its cell alone (`plan_cell`), as a ratio.
6. Cells per minute of a `clawmark sweep --pool` of `nop` cells with 1, 2 and 3 process workers on
   this machine (bench/_pool_workers.py; `--workers 1,2,3`, `--pool-cells 9`; `--workers 0` skips).
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project's analysis/, not bench/analysis.py

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "300")
os.environ.pop("PREFECT_API_URL", None)  # its own temporary server: slots of other runs cannot block it
if "PREFECT_HOME" not in os.environ:  # a private one, removed at exit (after Prefect's own exit hooks: LIFO)
    os.environ["PREFECT_HOME"] = tempfile.mkdtemp(prefix="clawmark-bench-prefect-")
    atexit.register(shutil.rmtree, os.environ["PREFECT_HOME"], ignore_errors=True)

from clawmark.results import ResultStore  # noqa: E402
from clawmark.results.synthetic import synthetic_table  # noqa: E402
from clawmark.settings import TASKS_CATALOG  # noqa: E402
from clawmark.sweeps import SweepSpec, plan_sweep  # noqa: E402
from clawmark.sweeps.plan import plan_cell  # noqa: E402

INSTANCES = TASKS_CATALOG / "swe" / "instances.jsonl"
MIX = ["clawmark-fixtures__iniparse-py-1", "clawmark-fixtures__wordwrap-js-1"]


def spec(sweep_id: str, tasks: list[str], claws: list[str], seeds: int, parallel: int = 1) -> SweepSpec:
    return SweepSpec(sweep_id=sweep_id, instances=INSTANCES, tasks=tasks, claws=claws, models=["scripted/demo"],
                     seeds=list(range(seeds)), max_parallel=parallel)


def sandbox_floor(n: int) -> float:
    from clawmark.runtime.images import ensure_image
    from clawmark.runtime.sandbox import Sandbox, SandboxConfig

    image, times = ensure_image("python"), []
    for _ in range(n):
        started = time.perf_counter()
        with Sandbox.provision(SandboxConfig(image=image, labels={"clawmark.bench": "sweep"})) as box:
            box.exec(["true"], timeout_s=60)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run_mode(sweep_spec: SweepSpec, root: Path, waves: bool) -> float:
    """Seconds to run every cell of the spec through the real stage task, by waves or by slots."""
    from prefect import flow

    from prefect.utilities.annotations import quote

    from flows.sweep_tasks import run_cell
    from flows.sweep import run_cells
    from clawmark.sweeps.shared_gateway import sweep_gateway

    store = ResultStore(root)

    @flow(name="bench-sweep")
    def bench() -> None:
        plan = plan_sweep(sweep_spec, store)
        if not waves:
            run_cells(plan, plan.pending, store)
            return
        with sweep_gateway() as gateway:
            for start in range(0, len(plan.pending), sweep_spec.max_parallel):
                wave = [run_cell.submit(quote(plan), c, quote(store), quote(gateway)) for c in plan.pending[start:start + sweep_spec.max_parallel]]
                [f.result(raise_on_failure=False) for f in wave]

    started = time.perf_counter()
    bench()
    return time.perf_counter() - started


def bench_docker(tmp: Path, cells: int, levels: list[int]) -> None:
    from flows.limits import ensure_limits

    ensure_limits(["scripted/demo"], max(levels))
    floor = sandbox_floor(max(3, cells))
    run_mode(spec("warm", MIX[:1], ["nop"], 1), tmp / "warm", waves=False)  # Prefect and images warm
    total = run_mode(spec("overhead", MIX[:1], ["nop"], cells), tmp / "overhead", waves=False)
    print(f"1. nop cell through Prefect + Docker: {total / cells:6.2f} s/cell; sandbox floor {floor:5.2f} s "
          f"({total / cells / floor:4.1f}x)", flush=True)
    period = cell_period(ResultStore(tmp / "overhead"), "overhead")
    print(f"1. the same, per cell without the sweep's own start and end (median time from one cell's start "
          f"to the next's): {period:6.2f} s/cell ({period / floor:4.1f}x the floor)", flush=True)
    for parallel in levels:
        for waves in (True, False):
            mixed = spec(f"mix-{parallel}-{int(waves)}", MIX, ["nop", "oracle"], 2, parallel)
            seconds = run_mode(mixed, tmp / f"mix-{parallel}-{int(waves)}", waves)
            n = len(MIX) * 2 * 2
            print(f"2. concurrency {parallel} {'waves' if waves else 'slots'}: {n} cells in {seconds:6.1f} s = "
                  f"{n / seconds * 60:5.1f} cells/min", flush=True)


def cell_period(store: ResultStore, sweep_id: str) -> float:
    """Median seconds between consecutive cells' starts of a one-slot sweep: what each more cell
    costs, apart from what the sweep spends once (its flow run, plan, gateway, last commit)."""
    table, _, _ = store.read_table(sweep_id, columns=["started_at"])
    starts = sorted(table.column("started_at").to_pylist())
    return statistics.median((b - a).total_seconds() for a, b in zip(starts, starts[1:]))


def commit_rows(store: ResultStore, sweep_id: str, keys: list[str], per_cell: bool) -> None:
    table = synthetic_table(len(keys), sweep_id=sweep_id)
    table = table.set_column(table.schema.get_field_index("cell_key"), "cell_key", pa.array(keys))
    if not per_cell:
        store.import_table(sweep_id, table)
        return
    import io

    import pyarrow.parquet as pq

    from clawmark.results.store import SINGLE_ROW_OPTIONS

    for i, key in enumerate(keys):  # the same single-row files `store.write` leaves before compaction
        sink = io.BytesIO()
        pq.write_table(table.slice(i, 1), sink, **SINGLE_ROW_OPTIONS)
        store.publish(store.row_path(sweep_id, key), sink.getvalue())


def bench_resume(tmp: Path) -> None:
    instances = [line for line in INSTANCES.read_text().splitlines() if line.strip()]
    ids = [__import__("json").loads(line)["instance_id"] for line in instances]
    for layout in ("per-cell", "compacted"):
        store = ResultStore(tmp / f"finished-{layout}", fsync=False)
        finished = spec("finished", ids[:10], ["nop"], 50)
        commit_rows(store, "finished", [c.cell_key for c in plan_sweep(finished, store).cells], layout == "per-cell")
        started = time.perf_counter()
        left = plan_sweep(finished, ResultStore(store.root)).pending
        print(f"3. finished 500-cell sweep, {layout} rows: decided {len(left)} left in {time.perf_counter() - started:5.2f} s "
              f"(target < 10 s)", flush=True)
    big = spec("big", ids, ["nop"], 770)
    store = ResultStore(tmp / "big", fsync=False)
    started = time.perf_counter()
    plan = plan_sweep(big, store)
    whole_s = time.perf_counter() - started
    print(f"4. {len(plan.cells):,}-cell sweep planned cold in {whole_s:5.2f} s", flush=True)
    bench_cell_plan(big, plan, store, whole_s)
    commit_rows(store, "big", [c.cell_key for c in plan.cells], per_cell=False)
    started = time.perf_counter()
    keys = ResultStore(store.root).completed_cells("big")
    read = time.perf_counter() - started
    started = time.perf_counter()
    left = plan_sweep(big, ResultStore(store.root)).pending
    print(f"4. resumed against {len(keys):,} committed rows: store read {read:5.2f} s, plan + resume "
          f"{time.perf_counter() - started:5.2f} s, {len(left)} left", flush=True)


def bench_cell_plan(big: SweepSpec, plan, store: ResultStore, whole_s: float) -> None:
    cells = plan.cells[:: max(1, len(plan.cells) // 20)]
    times = []
    for cell in cells:
        started = time.perf_counter()
        plan_cell(big, cell, store)
        times.append(time.perf_counter() - started)
    alone = statistics.median(times)
    print(f"5. a pool cell run finds its cell: whole grid {whole_s:5.2f} s, its cell alone {alone * 1000:6.1f} ms "
          f"(median of {len(cells)}): {whole_s / alone:,.0f}x less", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=6, help="nop cells for the overhead figure")
    parser.add_argument("--skip-docker", action="store_true", help="only the planning and resume figures")
    parser.add_argument("--concurrency", default="1,2,4", help="levels for waves vs slots (comma-separated)")
    parser.add_argument("--workers", default="1,2,3", help="pool workers per run of figure 6 (0: skip it)")
    parser.add_argument("--pool-cells", type=int, default=9, help="nop cells per pool sweep (figure 6)")
    args = parser.parse_args()
    print(f"load average at start: {_load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="clawmark-bench-sweep-") as tmp:
        bench_resume(Path(tmp))
        if not args.skip_docker:
            bench_docker(Path(tmp), args.cells, [int(x) for x in args.concurrency.split(",")])
            if workers := [int(x) for x in args.workers.split(",") if int(x) > 0]:
                from _pool_workers import bench_pool

                bench_pool(Path(tmp), INSTANCES, MIX[0], args.pool_cells, workers)
    print(f"load average at end: {_load()} ({os.cpu_count()} cores)", flush=True)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
