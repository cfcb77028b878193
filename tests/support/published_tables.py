"""The published UniClawBench and Claw-SWE-Bench files, imported once into a store (shared by the
importer, report and browser tests)."""

from __future__ import annotations

from pathlib import Path

from clawmark.results import ResultStore
from clawmark.results.imports import import_csb_leaderboard, import_ucb_results

DATASETS = Path("/work/shared/datasets")
UCB_RESULTS = DATASETS / "uniclawbench-results" / "results.json"
UCB_RUNS = DATASETS / "uniclawbench-results" / "runs.json"
CSB_LEADERBOARD = DATASETS / "swebench" / "claw_swe_bench_leaderboard.json"


def imported_store(root: Path) -> ResultStore:
    store = ResultStore(root, fsync=False)
    import_ucb_results(store, "ucb", UCB_RESULTS, UCB_RUNS, commit="17bad99")
    import_csb_leaderboard(store, "csb", CSB_LEADERBOARD)
    return store
