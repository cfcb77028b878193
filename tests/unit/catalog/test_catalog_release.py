"""The public UniClawBench sample loads whole: per task, the capability, language and how many
checkpoints and caps the rubric parser extracts (0 checkpoints = the rule stays text, with a warning).

The numbers were read off the rules by hand (counting weighted lines / rows / sub-headings of the
checkpoint section, and `cap ... 0.x` clauses of the policy), not copied from the parser.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from clawmark.catalog import load_tasks
from clawmark.cli.main import app
from tests.support.paths import UCB_SAMPLE

SAMPLE = UCB_SAMPLE

# task_id: (language, capability, checkpoints, caps)
EXPECTED = {
    "task_000_example": ("en", "setup", 0, 0),  # the template: instructions, no weighted lines
    "task_001_outlook_login": ("en", "setup", 5, 4),  # CP table, weights in a column
    "task_003_jq_json_query": ("en", "setup", 5, 4),  # checkpoint section is §4
    "task_101_03_access_log_regex": ("en", "skill_usage", 10, 6),  # `### 5.1 (5%) ...` sub-headings
    "task_101_19_github_activity_digest": ("en", "skill_usage", 7, 5),  # `- 0.20 — text`
    "task_101_21_notion_consolidate": ("en", "skill_usage", 10, 7),  # `- **0.10 — Name.** text`
    "task_101_35_en_zh_tech_daily": ("en", "skill_usage", 8, 6),  # `| # | Weight | Checkpoint |`
    "task_102_01_polymarket_live_odds": ("en", "exploration", 5, 5),
    "task_102_02_steam_appdetails": ("en", "exploration", 5, 5),
    "task_102_11_ecb_fx_xml_feed": ("en", "exploration", 4, 4),
    "task_102_24_vscode_extension_behavior_validation": ("en", "exploration", 5, 7),
    "task_103_05_mcp_server_landscape": ("en", "long_context", 5, 5),  # `- 0.30 Name: text`
    "task_103_06_self_hosted_rss_landscape": ("en", "long_context", 5, 5),
    "task_103_08_hk_jpop_calendar_ticketing": ("en", "long_context", 6, 5),
    "task_103_37_minesweeper_intermediate_play": ("en", "long_context", 0, 6),  # caps + pass gate only
    "task_104_03_panel_figure2_reproduction": ("en", "multimodal", 8, 11),
    "task_104_04_panel_figure3_reproduction": ("en", "multimodal", 7, 11),  # `- **0.06 - Name.**`, §4
    "task_104_05_panel_figure5_reproduction": ("en", "multimodal", 8, 13),
    "task_104_32_home_of_the_blues_lrc": ("en", "multimodal", 5, 13),  # nested "cap at 0.45 instead"
    "task_105_02_week32_receipts_gui_calc_writer": ("en", "cross_platform", 7, 9),
    "task_105_03_rust_tokyo_meetup_gui_calendar": ("en", "cross_platform", 6, 9),
    "task_105_25_drawio_contributing_flow": ("en", "cross_platform", 6, 6),  # `- **0.15** — text`
    "task_105_26_music_crossid": ("en", "cross_platform", 5, 5),  # caps as `condition → 0.20`
    "task_201_16_trello_triage": ("zh", "skill_usage", 12, 9),  # `- **0.30 — Name.**` caps; a `- 0.07 + ...` sum line is no checkpoint
    "task_201_29_flask_hotspots_2yr": ("zh", "skill_usage", 7, 6),  # `- **CP1 — Name (0.10).**`
    "task_201_31_postmortem_merge": ("zh", "skill_usage", 12, 7),  # `| Weight | Checkpoint |`
    "task_201_39_music_analysis": ("zh", "skill_usage", 8, 5),
    "task_202_03_arcgis_rest_query": ("zh", "exploration", 5, 5),
    "task_202_04_sec_edgar_data_api": ("zh", "exploration", 5, 5),
    "task_202_05_itunes_lookup": ("zh", "exploration", 5, 5),
    "task_202_12_zshrc_prompt_refactor_hard": ("zh", "exploration", 5, 6),
    "task_203_07_slack_openclaw_assistant_setup": ("zh", "long_context", 6, 4),
    "task_203_34_match_stream_event_monitor": ("zh", "long_context", 6, 4),
    "task_203_35_2048_h5_play": ("zh", "long_context", 4, 4),
    "task_203_38_minesweeper_hard_play": ("zh", "long_context", 0, 6),
    "task_204_31_bye_bye_love_lrc": ("zh", "multimodal", 7, 14),
    "task_204_33_house_of_rising_sun_lrc": ("zh", "multimodal", 6, 12),
    "task_204_34_la_vie_en_rose_lrc": ("zh", "multimodal", 6, 12),
    "task_204_35_love_is_strange_lrc": ("zh", "multimodal", 6, 13),
    "task_205_06_rust_meetup_route_gui_note": ("zh", "cross_platform", 7, 12),
    "task_205_10_tokyo_web_plan": ("zh", "cross_platform", 5, 5),
    "task_205_11_denver_web_plan": ("zh", "cross_platform", 5, 5),
    "task_205_33_calendar_scheduling": ("zh", "cross_platform", 8, 9),  # "cap Zoom-meeting checkpoint at 0" is no score cap
}


@pytest.fixture(scope="module")
def sample_tasks() -> dict:
    return {t.task_id: t for t in load_tasks(SAMPLE)}


def test_every_sample_task_loads(sample_tasks: dict) -> None:
    assert sorted(sample_tasks) == sorted(EXPECTED)


@pytest.mark.parametrize("task_id", sorted(EXPECTED))
def test_sample_task_structure(sample_tasks: dict, task_id: str) -> None:
    task = sample_tasks[task_id]
    rubric = task.rubric
    assert (task.language, task.capability, len(rubric.checkpoints), len(rubric.caps)) == EXPECTED[task_id]
    assert rubric.raw_text == task.eval_rule_file.read_text(encoding="utf-8")
    if rubric.checkpoints:
        assert rubric.total_weight == pytest.approx(1.0, abs=0.02)
        assert len({c.id for c in rubric.checkpoints}) == len(rubric.checkpoints)
        assert all(c.name for c in rubric.checkpoints)
    else:
        assert rubric.rubric_section is None
        assert any("checkpoints: no weighted checkpoint lines" in w for w in task.warnings)


def test_hand_read_details(sample_tasks: dict) -> None:
    """Names, ids and weights of a few rules, checked against the text."""
    regex = sample_tasks["task_101_03_access_log_regex"].rubric.checkpoints
    assert [c.weight for c in regex] == pytest.approx([.05, .16, .15, .06, .11, .12, .11, .12, .08, .04])
    assert regex[0].name == "Schema and valid JSON"
    notion = sample_tasks["task_101_21_notion_consolidate"].rubric.checkpoints
    assert (notion[0].name, notion[-1].weight) == ("Document skeleton.", 0.20)
    flask = sample_tasks["task_201_29_flask_hotspots_2yr"].rubric.checkpoints
    assert [c.id for c in flask] == [f"CP{i}" for i in range(1, 8)] and flask[2].weight == 0.25
    jq = sample_tasks["task_003_jq_json_query"].rubric
    assert jq.rubric_section == "4. Checkpoint Rubric" and [c.value for c in jq.caps] == [0.5, 0.8, 0.9, 0.95]
    crossid = sample_tasks["task_105_26_music_crossid"].rubric.caps
    assert [c.value for c in crossid] == [0.2, 0.4, 0.5, 0.3, 0.4]
    assert sample_tasks["task_103_08_hk_jpop_calendar_ticketing"].absent_skills == ["apt-package-manager"]
    mines = sample_tasks["task_203_38_minesweeper_hard_play"].rubric
    assert [c.value for c in mines.caps] == [0.2, 0.25, 0.25, 0.3, 0.4, 0.4]


def test_validate_cli_accepts_the_sample_and_lists_every_task() -> None:
    result = CliRunner().invoke(app, ["catalog", "validate", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    assert "43 closed-loop tasks" in result.output
    assert all(task_id in result.output for task_id in EXPECTED)
