"""What `clawmark sweep` prints: the live counts, a line per finished cell in logs, the summary."""

from __future__ import annotations

import math

from rich.table import Table

from clawmark.sweeps.progress import FinishedCell, SweepWatcher
from clawmark.sweeps.retry import Left


def _eta(seconds: float) -> str:
    if math.isnan(seconds):
        return "—"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes // 60}h{minutes % 60:02d}m" if minutes >= 60 else f"{minutes}m{secs:02d}s"


def _spend(watcher: SweepWatcher, cap: float | None) -> str:
    spent = f"${watcher.counts.spent_usd:.4f}"
    return f"{spent} of ${cap:.2f} cap" if cap else spent


def progress_table(watcher: SweepWatcher, spec) -> Table:
    c = watcher.counts
    table = Table(title=f"sweep {spec.sweep_id}", show_header=True)
    for column in ("planned", "skipped", "done", "running", "failed", "left", "cells/min", "ETA", "spend"):
        table.add_column(column, justify="right")
    table.add_row(str(c.planned), str(c.skipped), str(c.done_now), str(c.running), str(c.errors), str(c.left),
                  f"{watcher.rate_per_min():.1f}", _eta(watcher.eta_s()), _spend(watcher, spec.max_cost_usd))
    return table


def finished_line(cell: FinishedCell, watcher: SweepWatcher, cap: float | None = None) -> str:
    c = watcher.counts
    cost = f"${cell.cost_usd:.4f}" if math.isfinite(cell.cost_usd) else "unpriced"
    reason = f" — {cell.reason}" if cell.reason else ""
    return (f"[{cell.number or c.done}/{c.planned}] {cell.status:<13} {cell.task_id} · {cell.claw} · {cell.model} · {cost} "
            f"(running {c.running}, failed {c.errors}, skipped {c.skipped}, {watcher.rate_per_min():.1f}/min, "
            f"ETA {_eta(watcher.eta_s())}, spend {_spend(watcher, cap)}){reason}")


def status_table(watcher: SweepWatcher, sweep_id: str) -> Table:
    c = watcher.counts
    table = Table(title=f"sweep {sweep_id}")
    for column in ("planned", "done", "running", "failed", "left", "spend", "statuses"):
        table.add_column(column, justify="right" if column != "statuses" else "left")
    statuses = ", ".join(f"{s} {n}" for s, n in sorted(c.statuses.items()))
    table.add_row(str(c.planned), str(c.done), str(c.running), str(c.errors), str(c.left), f"${c.spent_usd:.4f}", statuses)
    return table


def left_lines(left: Left, again: str, rerun: str, limit: int) -> list[str]:
    """What the sweep still lacks, each with the exact command that would finish it."""
    if left.nothing:
        return ["left: nothing — every planned cell has a measured row"]
    lines = []
    if left.missing:
        lines.append(f"left: {left.missing} cells without a row — to run them: {again}")
    if left.retryable:
        lines.append(f"left: {_counted(left.retryable)} — the next run retries them: {again}")
    if left.spent:
        lines.append(f"left: {_counted(left.spent)} after {limit} retries — to try again: {rerun}")
    return lines


def _counted(statuses) -> str:
    return ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()))


def summary_table(result: dict, results_root: str) -> Table:
    retried = f" ({result['retried']} error rows retried)" if result.get("retried") else ""
    table = Table(title=f"sweep {result['sweep_id']}: {result['ran']} run{retried}, {result['skipped']} reused",
                  caption=f"report: clawmark report {result['sweep_id']} --results {results_root}")
    table.add_column("claw")
    table.add_column("model", overflow="fold")
    for column in ("tasks", "errors", "pass@1", "95% CI", "USD / attempt"):
        table.add_column(column, justify="right")
    for s in result["summary"]:
        table.add_row(s["claw"], s["model"], str(s["tasks"]), str(s["errors"]), f"{s['pass_at_1']:.2f}",
                      f"{s['ci_low']:.2f}–{s['ci_high']:.2f}", f"{s['mean_cost']:.4f}")
    return table
