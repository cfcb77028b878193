"""`make demo`: the demo sweep on the bundled defaults, then its headline table.

Runs with no Prefect server configured (Prefect starts a temporary one) and no real model: the
claws call the scripted model through the gateway over the same HTTP path a provider would take.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from clawmark.settings import TASKS_CATALOG, settings
from flows.sweep import sweep

DEMO_SPEC = TASKS_CATALOG / "sweeps" / "demo.yaml"


def render(result: dict, results_dir: Path) -> Table:
    table = Table(title=f"sweep {result['sweep_id']}: {result['ran']} run, {result['skipped']} reused "
                        f"(scripted model: illustrative prices)")
    table.add_column("claw")
    table.add_column("model", overflow="fold")
    for column in ("tasks", "errors", "pass@1", "95% CI", "USD / attempt", "USD total"):
        table.add_column(column, justify="right")
    for s in result["summary"]:
        table.add_row(s["claw"], s["model"], str(s["tasks"]), str(s["errors"]), f"{s['pass_at_1']:.2f}",
                      f"{s['ci_low']:.2f}–{s['ci_high']:.2f}", f"{s['mean_cost']:.4f}", f"{s['total_cost']:.4f}")
    table.caption = f"rows and artifacts: {results_dir}"
    return table


def main(argv: list[str]) -> int:
    spec_file = argv[0] if argv else str(DEMO_SPEC)
    results_dir = settings().results_dir
    result = sweep(spec_file=spec_file, results_dir=str(results_dir))
    # Without a terminal (make, CI logs) Rich assumes 80 columns and folds every cell.
    Console(width=None if sys.stdout.isatty() else 140).print(render(result, results_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
