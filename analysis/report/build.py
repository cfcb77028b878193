"""`build_report`: result rows → a folder with index.html, plots (PNG + SVG) and tables (Parquet + CSV)."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pandas as pd

import clawmark
from analysis.agreement import agreement_section
from analysis.judge_cost import judge_cost_view
from analysis.pareto import pareto_front
from analysis.report import plots
from analysis.report.html import render, table_html
from analysis.report.tables import ReportTables, round_floats, summarise

LEADERBOARD_COLUMNS = ["rank", "claw", "model", "pass_at_1", "ci_low", "ci_high", "rank_low", "rank_high",
                       "p_first", "tasks", "trials", "errors", "mean_score", "mean_cost", "cost_per_task",
                       "total_cost", "unpriced", "mean_tokens", "cache_hit_rate", "mean_wall_s", "on_front",
                       "front_share"]


OPTIONAL_SECTIONS = ("pareto-none", "tokens", "heatmap", "followup", "baselines", "harness_model", "followup_effect", "followups",
                     "followup_leaks", "judge")


def build_report(frame: pd.DataFrame, out_dir: str | Path, *, title: str = "clawmark report",
                 config: Any = None, expected: pd.DataFrame | None = None, n_boot: int = 1000,
                 seed: int = 0, judges: pd.DataFrame | None = None) -> Path:
    """Write the report for `frame` into `out_dir` and return the path of index.html. `judges`:
    rows of another judge of the same attempts (a re-judge sweep or its source) for the
    judge-agreement section."""
    out = Path(out_dir)
    frame = frame.assign(model=frame["model"].map(display_model)) if len(frame) else frame
    for sub in ("plots", "tables"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    tables = summarise(frame, expected, n_boot=n_boot, seed=seed)
    agreement = agreement_section(frame, judges, tables.extra) if judges is not None else None
    _save_tables(tables, out / "tables")
    sections = _sections(tables, out / "plots") + ([agreement] if agreement else [])
    facts = {"rows": len(frame), "configs": len(tables.leaderboard), "tasks": frame["task_id"].nunique() if len(frame) else 0,
             "protocol": ", ".join(sorted(map(str, frame["protocol_version"].dropna().unique()))) or "—",
             "version": clawmark.__version__}
    index = out / "index.html"
    index.write_text(render(title=title, sections=sections, facts=facts, config=config), encoding="utf-8")
    return index


def display_model(name: object) -> object:
    """A model name as a reader knows it: a per-task template (`scripted/demo-large-{task_id}`, one
    cassette per task) names one model, so the placeholder and its joining dash go."""
    return re.sub(r"[-_/.]?\{task_id\}", "", name) if isinstance(name, str) else name


def leaderboard_view(board: pd.DataFrame, *, front: bool = False) -> pd.DataFrame:
    """The page's leaderboard: intervals folded into one column each so it fits the page with the
    cost columns in view (every column stays in tables/leaderboard.csv)."""
    if board.empty:
        return board
    view = pd.DataFrame({"rank": board["rank"], "claw": board["claw"], "model": board["model"],
                         "pass@1": board["pass_at_1"].round(3),
                         "95% CI": [_span(lo, hi, "{:.3f}") for lo, hi in zip(board["ci_low"], board["ci_high"])],
                         "rank range": [_span(lo, hi, "{:.0f}") for lo, hi in zip(board["rank_low"], board["rank_high"])],
                         "P(first)": board["p_first"].round(2)})
    for column, title in (("mean_cost", "cost / attempt $"), ("total_cost", "total cost $"),
                          ("mean_tokens", "M tokens / attempt"), ("tasks", "tasks"), ("errors", "errors"),
                          *((("front_share", "front share"),) if front else (("on_front", "on front"),))):
        if column in board:
            view[title] = (board[column] / 1e6).round(3).to_numpy() if column == "mean_tokens" else board[column].to_numpy()
    return view


def _span(low: float, high: float, fmt: str) -> str:
    return "—" if pd.isna(low) or pd.isna(high) else f"{fmt.format(low)}–{fmt.format(high)}"


def _save_tables(tables: ReportTables, folder: Path) -> None:
    for name, table in tables.named().items():
        if table is None or table.empty:
            continue
        table = table.reset_index(drop=True)
        table.to_csv(folder / f"{name}.csv", index=False)
        table.astype({c: "string" for c in table.columns if table[c].dtype == object}).to_parquet(
            folder / f"{name}.parquet", index=False)


def _figure(name: str, fig, folder: Path) -> str | None:
    """Save PNG + SVG; return the SVG text for inlining."""
    if fig is None:
        return None
    fig.savefig(folder / f"{name}.png", dpi=120)
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    (folder / f"{name}.svg").write_text(buffer.getvalue(), encoding="utf-8")
    plots.plt.close(fig)
    svg = buffer.getvalue()
    return svg[svg.index("<svg"):]


def _sections(t: ReportTables, folder: Path) -> list[dict[str, Any]]:
    board = t.leaderboard[[c for c in LEADERBOARD_COLUMNS if c in t.leaderboard.columns]]
    effects = t.extra.get("harness_model_effects", pd.DataFrame())
    heat_dim, heat = next(((dim, t.breakdowns[dim]) for dim in ("capability_language", "capability", "language")
                           if len(t.breakdowns.get(dim, ()))), ("language", t.breakdowns["language"]))
    priced = t.front if len(t.front) else None
    token_front = pareto_front(t.leaderboard, cost="mean_tokens") if priced is None and len(t.leaderboard) else None
    specs = [
        ("leaderboard", "Leaderboard", plots.leaderboard(t.leaderboard), leaderboard_view(board),
         "pass@1 with 95% task-bootstrap intervals; rank interval and P(first) from the same paired bootstrap. "
         "Cost counts every role, the judge's included (its share: Judge cost and time). "
         "Every column: tables/leaderboard.csv."),
        ("judge", "Judge cost and time", None, judge_cost_view(t.extra.get("judge_cost", pd.DataFrame())),
         "Per attempt, what the closed loop's judge (supervisor + user simulator) spent beside the executor: USD "
         "(mean over priced attempts; a total with an unpriced attempt is unknown, —), tokens, and wall seconds of "
         "the supervise and follow-up stages. Patch tasks have no judge (n/a); imported rows publish no judge "
         "cost (—). Every column: tables/judge_cost.csv."),
        ("baselines", "Sanity baselines (oracle, nop)", None, t.extra.get("baselines"),
         "The reference answer (oracle) and doing nothing (nop) check the harness and the judge; they are not "
         "ranked and never sit on the front."),
        ("harness_model", "Harness vs model", None, t.extra.get("harness_model_cells"),
         " ".join(effects["statement"]) if len(effects) else None),
        ("pareto" if priced is not None else "pareto-none", "Cost–accuracy Pareto front", plots.cost_accuracy(t.leaderboard, t.front), leaderboard_view(t.front, front=True),
         "A configuration is on the front when no other is both cheaper (or equal) and at least as accurate. front_share: share of bootstrap draws in which it is on the front."),
        ("tokens", "Tokens–accuracy", plots.tokens_accuracy(t.leaderboard, token_front),
         leaderboard_view(token_front, front=True).drop(columns="front share", errors="ignore") if token_front is not None else None,
         "Mean tokens (input + output, every role) per attempt over the rows that collected them."
         + (" No attempt has a cost, so the front is drawn on tokens: no other configuration uses fewer or as "
            "many tokens and is at least as accurate." if token_front is not None else "")),
        ("heatmap", f"pass@1 by {heat_dim.replace('_', ' × ')}", plots.heatmap(heat, heat_dim), heat, None),
        ("followup", "Pass rate by follow-up turn", plots.followup(t.followup), t.scores,
         "Closed-loop rows: pass rate had the loop stopped after turn t; table: mean best score and the turn the best score came from."),
        ("followup_effect", "What follow-ups buy", None, t.extra.get("followup_effect"),
         "followed_up: rows judged on more than one turn; rescued: of those, rows that ended passed "
         "(a follow-up turned a fail into a pass); rescue_rate = rescued / followed_up."),
        ("followups", "Pass rate by number of follow-ups", None, t.extra.get("pass_by_followups"), None),
        ("roles", "Cost per role", plots.cost_per_role(t.roles), t.roles, "Mean tokens and USD per attempt of each role (executor, supervisor, user simulator)."),
        ("errors", "Final status, errors and missing cells", None, t.statuses,
         "Rows per configuration and final status; error statuses and missing cells are never folded into fails."),
        ("failures", "Measured failures by reason", None, t.failures, "Patch-caused evaluation failures stay in every denominator."),
        ("comparisons", "Paired comparisons", None, t.comparisons, "Each pair on the tasks both measured; Holm-corrected p-values."),
        ("leaks", "Leak-audit flags", None, t.leaks, "Follow-ups that shared long n-grams, file names, check names or score numbers with the hidden material."),
        ("followup_leaks", "Follow-ups stopped by the leak audit", None, t.extra.get("followup_leaks", "judge"),
         "Per claw × model: simulator drafts never sent because the leak audit fired; the executor got the redacted "
         "retry (retry_sent) or the neutral continue message (neutral_sent). rows_checked: rows that record it."),
    ]
    sections = []
    for sid, title, fig, table, note in specs:
        svg = _figure(sid, fig, folder)
        shown = table_html(round_floats(table)) if table is not None else None
        if svg is None and (table is None or table.empty) and sid in OPTIONAL_SECTIONS:
            continue  # nothing of this kind in the sweep (e.g. a patch-only sweep has no follow-ups)
        sections.append({"id": sid, "title": title, "figure": svg, "table": shown, "note": note})
    return sections
