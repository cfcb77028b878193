"""eval_rule.md parsing on drifted rules: sections, checkpoints located by content, caps (EN + ZH)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawmark.catalog import parse_eval_rule
from clawmark.catalog.eval_rule import split_sections

NINE_SECTIONS_EN = """# Evaluation rule
## 1. Grading philosophy
Strict.
## 2. Task contract
results/report.md
## 3. Source-selection rules
Only the CSV.
## 4. Ground-truth snapshot
Total 42. (This is not a cap at 0.5, just prose.)
## 5. Checkpoint rubric
| ID | Checkpoint | Weight | Pass condition |
|----|------------|--------|----------------|
| C1 | Report exists | 0.25 | file present |
| C2 | Total | **0.50** | equals 42 |
| C3 | Method noted | 25% | says how |
## 6. Scoring policy and score caps
- Cap at `0.50` if the total is wrong.
- If no report exists, the score is capped at 0.0.
- Pass requirement: score >= 0.9.
## 7. Continue vs fail guidance
Continue when recoverable.
## 8. Hidden reference assets
None.
## 9. Dynamic-content note
None.
"""

TEN_SECTIONS_SUBHEADINGS = """## Philosophy
x
## Contract
x
## Targets
x
## Truth
x
## What we score
### CP-1: Finds the file
- Weight: 0.4
- Locates data.csv
### CP-2: Correct answer
- Weight: 0.6
- Writes 7
## Penalties
The final score is capped at 0.3 when the answer is missing.
Maximum score 0.6 if the file is in the wrong folder.
## Continue
x
## Hidden
x
## Dynamic
x
## Reviewer notes
```markdown
## Not a heading (inside a fence)
- C9 fake (weight 0.9)
```
"""

FOUR_SECTIONS_POINTS = """# Rule
## Task and ground truth
PostgreSQL, 2026-02-24.
## Rubric
| # | Item | Points | Criteria |
|---|------|--------|----------|
| C1 | Answer file | 2 | exists |
| C2 | Database | 4 | PostgreSQL |
| C3 | Date | 4 | 2026-02-24 |
## Scoring
Score = points / 10. Cap at 0.2 if the answer is MongoDB. Passing needs 0.9.
## Guidance
Continue when the file is missing.
"""

CHINESE_NINE = """# 评测规则
## 一、评分理念
只看交付文件。
## 二、任务约定
结果写入 results/total.txt。
## 三、目标规则
只统计 03-14 的日志。
## 四、标准答案
E2002 出现 36 次，违约金上限 10% 是合同内容而不是分数上限。
## 五、评分细则
- **C1 结果文件存在**（权重 0.2）：文件存在
- **C2 错误码正确**（权重 0.5）：第一行为 E2002
- **C3 次数正确**（权重 0.3）：第二行为 36
## 六、分数上限
1. 如果答案为 E1001，得分上限为 `0.2`。
2. 次数错误但错误码正确时，最高 0.7 分。
3. 未生成文件时总分封顶 0。
## 七、继续与失败
文件缺失时继续。
## 八、隐藏资料
无。
## 九、动态内容
无。
"""

CHINESE_SIX_TABLE_PERCENT = """### 任务与答案
每日 0.05%，上限 10%。
### 检查点
| 序号 | 检查点 | 分值 | 说明 |
|------|--------|------|------|
| C1 | 文件格式 | 20% | JSON |
| C2 | 每日比例 | 40% | 0.05 |
| C3 | 违约金上限 | 40% | 10 |
### 评分规则
- 若引用了错误条款，得分上限为 `0.2`。
- 得分达到 0.9 即通过。
### 继续指导
文件缺失时继续。
### 其他一
无
### 其他二
无
"""


def parse(tmp_path: Path, text: str):
    path = tmp_path / "eval_rule.md"
    path.write_text(text, encoding="utf-8")
    return parse_eval_rule(path)


@pytest.mark.parametrize("text, sections, rubric_title, weights, caps", [
    (NINE_SECTIONS_EN, 10, "5. Checkpoint rubric", [0.25, 0.5, 0.25], [0.5, 0.0]),
    (TEN_SECTIONS_SUBHEADINGS, 10, "What we score", [0.4, 0.6], [0.3, 0.6]),
    (FOUR_SECTIONS_POINTS, 5, "Rubric", [0.2, 0.4, 0.4], [0.2]),
    (CHINESE_NINE, 10, "五、评分细则", [0.2, 0.5, 0.3], [0.2, 0.7, 0.0]),
    (CHINESE_SIX_TABLE_PERCENT, 6, "检查点", [0.2, 0.4, 0.4], [0.2]),
])
def test_drifted_rules_yield_checkpoints_summing_to_one_and_caps(
        tmp_path: Path, text: str, sections: int, rubric_title: str, weights: list[float], caps: list[float]) -> None:
    rubric = parse(tmp_path, text)
    assert len(rubric.sections) == sections  # a title preamble counts as its own section
    assert rubric.rubric_section == rubric_title
    assert [c.weight for c in rubric.checkpoints] == pytest.approx(weights)
    assert rubric.total_weight == pytest.approx(1.0)
    assert [c.value for c in rubric.caps] == caps
    assert rubric.policy_section != rubric.rubric_section


def test_checkpoint_fields_and_cap_conditions_are_kept(tmp_path: Path) -> None:
    rubric = parse(tmp_path, NINE_SECTIONS_EN)
    first = rubric.checkpoints[0]
    assert (first.id, first.name, first.description) == ("C1", "Report exists", "file present")
    assert rubric.caps[0].condition == "Cap at 0.50 if the total is wrong."
    assert rubric.pass_requirement == "Pass requirement: score >= 0.9."
    zh = parse(tmp_path, CHINESE_NINE)
    assert (zh.checkpoints[1].id, zh.checkpoints[1].name) == ("C2", "错误码正确")
    assert zh.caps[0].condition == "如果答案为 E1001，得分上限为 0.2。"
    assert zh.policy_section == "六、分数上限"


def test_headings_inside_code_fences_are_not_sections(tmp_path: Path) -> None:
    rubric = parse(tmp_path, TEN_SECTIONS_SUBHEADINGS)
    assert "Not a heading (inside a fence)" not in [s.title for s in rubric.sections]
    assert [c.id for c in rubric.checkpoints] == ["CP1", "CP2"]


def test_percent_inside_prose_is_not_a_cap(tmp_path: Path) -> None:
    rubric = parse(tmp_path, CHINESE_SIX_TABLE_PERCENT)
    assert rubric.policy_section == "评分规则"
    assert rubric.pass_requirement == "得分达到 0.9 即通过。"


def test_rule_without_any_rubric_stays_text_with_a_warning(tmp_path: Path) -> None:
    text = "# Rule\n## Philosophy\nBe fair.\n## Policy\nCap at 0.5 if late.\n"
    rubric = parse(tmp_path, text)
    assert rubric.checkpoints == [] and rubric.rubric_section is None and rubric.raw_text == text
    assert [c.value for c in rubric.caps] == [0.5]
    assert rubric.warnings == [f"{tmp_path / 'eval_rule.md'}: checkpoints: no weighted checkpoint lines found "
                               "(the rubric stays text for the supervisor)"]
    assert rubric.scored_text().startswith("## Policy")


def test_fractional_weights_that_do_not_sum_to_one_are_kept_with_a_warning(tmp_path: Path) -> None:
    rubric = parse(tmp_path, "## Checkpoints\n- C1 a (weight 0.3)\n- C2 b (weight 0.3)\n## Caps\ncap at 0.1 if x\n")
    assert [c.weight for c in rubric.checkpoints] == [0.3, 0.3]
    assert len(rubric.warnings) == 1 and "checkpoints.weight: weights sum to 0.60" in rubric.warnings[0]


@pytest.mark.parametrize("body, ids, weights, names", [
    ("- **0.40 — Output shape.** file exists\n- **0.60 — Total.** right sum\n",
     ["C1", "C2"], [0.4, 0.6], ["Output shape.", "Total."]),
    ("- 0.25 Flight research: three options\n  more text\n- 0.75 Booking: done\n- 0.5 + 0.5 = 1\n- 1 hour spare\n",
     ["C1", "C2"], [0.25, 0.75], ["Flight research", "Booking"]),
    ("- **0.30** — `a.json` parses; keys ok\n- 0.70 — **Numbers right.** all of them\n",
     ["C1", "C2"], [0.3, 0.7], ["a.json parses", "Numbers right."]),
    ("### 5.1 (40%) Schema\ntext\n### 5.2 (60%) Values\n| d | credit | weight portion |\n|--|--|--|\n"
     "| 0 | full | 60% |\n| 1 | part | 30% |\n", ["C1", "C2"], [0.4, 0.6], ["Schema", "Values"]),
    ("| # | Weight | Checkpoint |\n|---|---|---|\n| 1 | 0.5 | a thing |\n| 2 | 0.5 | another |\n",
     ["C1", "C2"], [0.5, 0.5], ["a thing", "another"]),
    ("| ID | What matters (outcome) | Weight |\n| --- | --- | --- |\n| CP1 | reached it | 0.6 |\n"
     "| CP2 | saved it | 0.4 |\n", ["CP1", "CP2"], [0.6, 0.4], ["reached it", "saved it"]),
    ("| Weight | Checkpoint |\n|---|---|\n| 25% | 文件存在 |\n| 75% | 数值正确 |\n",
     ["C1", "C2"], [0.25, 0.75], ["文件存在", "数值正确"]),
])
def test_release_checkpoint_shapes(tmp_path: Path, body: str, ids: list, weights: list, names: list) -> None:
    rubric = parse(tmp_path, f"## 1. Philosophy\nfair\n## 5. Checkpoint Rubric\n{body}## 6. Policy\ncap at 0.3 if none\n")
    assert [c.id for c in rubric.checkpoints] == ids
    assert [c.weight for c in rubric.checkpoints] == pytest.approx(weights)
    assert [c.name for c in rubric.checkpoints] == names
    assert rubric.warnings == []


@pytest.mark.parametrize("policy, caps", [
    ("- **Cap 0.30 — no deliverable.** nothing\n- **Cap at 0.70 — skill.** unused\n", [0.3, 0.7]),
    ("- **No file.** If it is missing →\n  cap total at **0.30**.\n", [0.3]),
    ("Caps:\n- No JSON results → 0.20.\n- Wrong song\n  or artist → 0.40.\n", [0.2, 0.4]),
    ("- Late: cap at 0.6; if also wrong, cap at 0.45 instead.\n- a line capped at 7% only\n", [0.6, 0.45]),
    ("| 条件 | 上限 |\n|---|---|\n| 缺少文件，得分上限 0.3 | - |\n", [0.3]),
    ("- **0.30 — No deliverable.** none\n- **Cap 0.40 — Bypass.** if so,\n  cap total at 0.40.\n", [0.3, 0.4]),
    ("If late, cap at 0.70. If wrong, cap at 0.70. If absent, cap at 0.40.\n", [0.7, 0.7, 0.4]),
    ("- One room reused\n  → cap Zoom-meeting checkpoint at 0 (and overall cap 0.85).\n", [0.85]),
])
def test_release_cap_shapes(tmp_path: Path, policy: str, caps: list) -> None:
    rubric = parse(tmp_path, f"## 5. Checkpoint Rubric\n- 1.0 — All: done\n## 6. Scoring Policy / Caps\n{policy}")
    assert [c.value for c in rubric.caps] == caps
    assert rubric.policy_section == "6. Scoring Policy / Caps"


def test_weight_first_lines_are_caps_only_under_a_caps_title(tmp_path: Path) -> None:
    rubric = parse(tmp_path, "## 5. Checkpoint Rubric\n- **0.40 — A.** a\n- **0.60 — B.** b\n"
                             "## 6. Score Caps\n- **0.30 — Nothing.** no file\n")
    assert [c.weight for c in rubric.checkpoints] == [0.4, 0.6]
    assert [(c.value, c.text) for c in rubric.caps] == [(0.3, "0.30 — Nothing. no file")]


def test_rule_without_headings_is_one_section(tmp_path: Path) -> None:
    rubric = parse(tmp_path, "- C1 only (weight 1.0)\nCap at 0.5 if late.\n")
    assert len(rubric.sections) == 1 and rubric.checkpoints[0].weight == 1.0
    assert [c.value for c in rubric.caps] == [0.5]


def test_split_sections_uses_the_shallowest_repeated_level() -> None:
    sections = split_sections("# Title\nintro\n## A\na\n### A.1\nx\n## B\nb\n")
    assert [s.title for s in sections] == ["", "A", "B"]
    assert "### A.1" in sections[1].body


def test_scored_text_holds_only_rubric_and_policy(tmp_path: Path) -> None:
    text = parse(tmp_path, NINE_SECTIONS_EN).scored_text()
    assert text.startswith("## 5. Checkpoint rubric") and "## 6. Scoring policy and score caps" in text
    assert "Grading philosophy" not in text and "Total 42" not in text


@pytest.mark.parametrize("body, ids, weights", [
    ("### Checkpoint 1: file (weight 0.5)\n### Checkpoint 2 — answer (weight 0.5)\n", ["C1", "C2"], [0.5, 0.5]),
    ("1. Report exists (weight 0.2): yes\n2. Total right (权重 0.8)\n3. not weighted\n", ["C1", "C2"], [0.2, 0.8]),
    ("- 检查点1：文件存在（权重 0.4）\n- 检查点2：内容正确（权重 0.6）\n", ["C1", "C2"], [0.4, 0.6]),
    ("- K1 a [40%]\n- K2 b [60%]\n", ["K1", "K2"], [0.4, 0.6]),
])
def test_other_checkpoint_spellings(tmp_path: Path, body: str, ids: list[str], weights: list[float]) -> None:
    rubric = parse(tmp_path, "# R\n## Intro\nx\n## Checks\n" + body + "## Caps\nCap at 0.5 if late.\n")
    assert [c.id for c in rubric.checkpoints] == ids
    assert [c.weight for c in rubric.checkpoints] == pytest.approx(weights)
