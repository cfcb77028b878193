"""A small closed-loop task package written into a tmp folder (folder layout), for judge tests."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from clawmark.catalog.package import load_task
from clawmark.catalog.task import ClosedLoopTask

RULE_EN = """# Evaluation rule: {task_id}

## 1. Grading philosophy
Grade the delivered file only.

## 5. Checkpoint rubric
| ID | Checkpoint | Weight | Pass condition |
|----|------------|--------|----------------|
| C1 | Deliverable exists | 0.20 | summary.json exists and parses as JSON |
| C2 | Correct total | 0.50 | the grand total must equal the sum of every invoice line in the ledger |
| C3 | Clear explanation | 0.30 | notes.md explains which rows were excluded and why |

## 6. Scoring policy and score caps
- Cap at 0.30 if the total is wrong.
- Pass requirement: score >= 0.9.
"""

RULE_ZH = """# 评分规则

## 5. 检查点
| ID | 检查点 | 权重 | 说明 |
|----|--------|------|------|
| C1 | 结果文件 | 0.40 | 结果文件必须包含每一张发票的金额合计 |
| C2 | 说明 | 0.60 | 说明中列出被排除的重复发票编号 |

## 6. 评分政策
- 如果合计错误，分数上限 0.30。
"""

CHECKS = {
    "checks": [
        {"id": "summary_exists", "checkpoint": "C1", "kind": "file_exists", "path": "results/summary.json"},
        {"id": "total_matches", "checkpoint": "C2", "kind": "equals_reference", "path": "results/summary.json",
         "pointer": "total", "reference": "references/answer_key.json", "reference_pointer": "total",
         "tolerance": 0.005},
    ],
    "caps": [{"check": "total_matches", "max_score": 0.3}],
}


def write_task(root: Path, task_id: str = "en_101_judge", *, language: str = "en", checks: dict | None = CHECKS,
               extra_references: dict[str, str] | None = None, codex: dict | None = None,
               snapshot_text: str | None = None) -> ClosedLoopTask:
    package = root / task_id
    (package / "references").mkdir(parents=True)
    rule = (RULE_EN if language == "en" else RULE_ZH).format(task_id=task_id)
    (package / "references" / "eval_rule.md").write_text(rule, encoding="utf-8")
    (package / "references" / "answer_key.json").write_text(json.dumps({"total": 790.0, "region": "East"}))
    for name, text in (extra_references or {}).items():
        (package / "references" / name).write_text(text, encoding="utf-8")
    if checks is not None:
        (package / "references" / "checks.yaml").write_text(yaml.safe_dump(checks))
    spec = {
        "task_id": task_id, "category": "101_skill_usage" if language == "en" else "201_skill_usage_zh",
        "success_threshold": 0.9, "references": ["references/eval_rule.md", "references/answer_key.json"],
        "task": ("Add up the invoices in sources/ledger.csv and save /tmp_workspace/results/summary.json."
                 if language == "en" else "请把 sources/ledger.csv 里的发票金额加总，保存到 /tmp_workspace/results/summary.json。"),
        "codex": codex or {"max_user_followups": 2},
    }
    if snapshot_text:
        spec["task_snapshot"] = snapshot_text
    (package / "task.yaml").write_text(yaml.safe_dump(spec, allow_unicode=True), encoding="utf-8")
    return load_task(package / "task.yaml")


def write_results(folder: Path, files: dict[str, str | bytes]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return folder
