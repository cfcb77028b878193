"""The bundled suite's checks.yaml are right: for every task, a correct deliverable passes every
check and a deliverable that falls into the task's trap fails exactly the checks it should.

The checks run through the judge's stdlib check runner as a plain process (the evaluation
container adds isolation, not semantics). These deliverables are also what the cassettes write.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clawmark.catalog import load_tasks
from clawmark.settings import PROJECT_ROOT, TASKS_CATALOG

RUNNER = PROJECT_ROOT / "clawmark/judge/check_runner.py"
MEETINGS = "2026-04-08 15:00 支付网关方案评审\n2026-04-10 16:00 续约沟通\n"
RECEIPTS = {"101": "1c56394b87", "104": "7fc8de7c41", "107": "614aaedd65", "111": "caacbc7b33"}

# task_id: (correct deliverable, trap deliverable, checks the trap fails)
CASES: dict[str, tuple[dict, dict, set[str]]] = {
    "en_101_sales_total": (
        {"summary.json": {"total": 970.00, "top_region": "East", "digest": "8a284d34f970"}},
        {"summary.json": {"total": 1535.00, "top_region": "West", "digest": "2cd11029cca3"}},  # no settled filter
        {"booked_total", "top_region", "skill_digest"}),
    "zh_201_invoice_sum": (
        {"invoice_total.txt": "1816.00\n", "invoices.csv": "号码,价税合计\nINV-0301,1060.00\nINV-0302,226.00\nINV-0303,530.00\n"},
        {"invoice_total.txt": "4996.00\n", "invoices.csv": "号码,价税合计\nINV-0301,1060.00\nINV-0302,226.00\n"
                                                          "INV-0303,530.00\nINV-0304,3180.00\n"},  # void counted
        {"booked_total", "invoice_list"}),
    "en_102_find_port": (
        {"port.txt": "9443\n", "port_source.txt": "/etc/payment/overrides.d/20-port.conf\n"},
        {"port.txt": "8443\n", "port_source.txt": "/etc/payment/prod.conf\n"},  # override missed
        {"port_value", "port_source"}),
    "zh_202_error_code": (
        {"error_code.txt": "E431\n27\n", "query.sql": "SELECT error_code, COUNT(*) FROM orders WHERE status='failed' "
         "AND is_test = 0 AND created_at BETWEEN '2026-03-14 18:00:00' AND '2026-03-14 23:59:59' GROUP BY 1;"},
        {"error_code.txt": "E502\n49\n", "query.sql": "SELECT error_code, COUNT(*) FROM orders WHERE status='failed' "
         "AND created_at >= '2026-03-14 18:00:00' GROUP BY 1;"},  # load-test rows counted
        {"code_line", "count_line", "query_filters_tests"}),
    "en_103_meeting_decision": (
        {"decision.json": {"database": "PostgreSQL 16", "decided_on": "2026-02-24", "evidence_line": 243}},
        {"decision.json": {"database": "CockroachDB", "decided_on": "2026-03-19", "evidence_line": 354}},
        {"database", "decided_on", "evidence_line"}),
    "zh_203_contract_clause": (
        {"penalty.json": {"daily_percent": 0.05, "cap_percent": 15, "sources": ["contract.md", "补充协议二.md"]}},
        {"penalty.json": {"daily_percent": 0.05, "cap_percent": 10, "sources": ["contract.md"]}},  # supplement missed
        {"cap_percent", "cited_sources"}),
    "en_104_chart_peak": (
        {"peak.json": {"month": "Oct", "revenue_k": 412}},
        {"peak.json": {"month": "Nov", "revenue_k": 440}},  # the tallest bar is a target
        {"peak_month", "peak_value"}),
    "zh_204_pie_share": (
        {"share.json": {"channel": "直播带货", "percent": 36}},
        {"share.json": {"channel": "线上商城", "percent": 38}},  # last month's figure
        {"share_channel", "share_percent"}),
    "en_105_ticket_sync": (
        {"high_open.json": [101, 104, 107, 111], "escalations.json": RECEIPTS},
        {"high_open.json": [101, 104]},  # first page only, nothing labelled
        {"high_open", "receipts"}),
    "zh_205_inbox_digest": (
        {"missing_meetings.md": MEETINGS},
        {"missing_meetings.md": "2026-04-08 15:00 支付网关方案评审\n2026-04-09 09:30 续约沟通\n"},  # reschedule missed
        {"renewal_line", "stale_time_absent", "exact_lines"}),
    "uc_101_word_count": (
        {"stats.json": {"words": 32, "fix_lines": 3}},
        {"stats.json": {"words": 32, "fix_lines": 4}},
        {"fix_lines"}),
    "uc_202_todo_merge": (
        {"todo.md": "- [ ] 预约会议室\n- [ ] 回复客户邮件\n- [ ] 整理发票\n"},
        {"todo.md": "- [x] 提交周报\n- [ ] 预约会议室\n- [ ] 回复客户邮件\n- [ ] 整理发票\n- [ ] 续签域名\n"},
        {"exact_list", "no_done_items"}),
    "en_106_dashboard_chart": (  # headed: the numbers exist only in the rendered page
        {"revenue.json": {"Q1": 310, "Q2": 365, "Q3": 402, "Q4": 388}, "revenue.png": "png"},
        {"revenue.json": {"Q1": 300, "Q2": 380, "Q3": 390, "Q4": 420}, "revenue.png": "png"},  # the plan column
        {"q3_value", "q4_value"}),
    "zh_206_sheet_total": (  # headed: LibreOffice Calc on the desktop
        {"sales.xlsx": "xlsx", "total.json": {"total": 349.75}},
        {"total.json": {"total": 349.75 - 51}},  # sheet not saved, one region left out
        {"sheet_saved", "total_value"}),
}


@pytest.fixture(scope="module")
def tasks() -> dict:
    return {t.task_id: t for t in load_tasks(TASKS_CATALOG / "closed_loop")}


def run_checks(task, files: dict, tmp_path: Path) -> dict[str, dict]:
    workspace, judge = tmp_path / "ws", tmp_path / "judge"
    (workspace / "results").mkdir(parents=True)
    for name, content in files.items():
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        (workspace / "results" / name).write_text(text, encoding="utf-8")
    shutil.copytree(task.package_dir / "references", judge / "references")
    checks = judge / "checks.json"
    checks.write_text(json.dumps([c.model_dump(mode="json") for c in task.checks.checks]))
    done = subprocess.run([sys.executable, str(RUNNER), str(checks), str(workspace), str(judge)],
                          capture_output=True, text=True, timeout=120, check=True)
    return {r["id"]: r for r in json.loads(done.stdout)}


def test_every_bundled_task_has_a_case(tasks: dict) -> None:
    assert sorted(tasks) == sorted(CASES)
    assert all(t.checks is not None and t.checks.covered(t.rubric) for t in tasks.values())


@pytest.mark.parametrize("task_id", sorted(CASES))
def test_correct_deliverable_passes_every_check(tasks: dict, task_id: str, tmp_path: Path) -> None:
    results = run_checks(tasks[task_id], CASES[task_id][0], tmp_path)
    assert {i: r["detail"] for i, r in results.items() if not r["passed"]} == {}
    assert not any(r["crashed"] for r in results.values())


@pytest.mark.parametrize("task_id", sorted(CASES))
def test_trap_deliverable_fails_exactly_the_trap_checks(tasks: dict, task_id: str, tmp_path: Path) -> None:
    results = run_checks(tasks[task_id], CASES[task_id][1], tmp_path)
    assert {i for i, r in results.items() if not r["passed"]} == CASES[task_id][2]
    assert not any(r["crashed"] for r in results.values())
