"""`clawmark catalog needs`: per task live web and hosts, credentials and whether the user has
them, snapshot path, desktop, outside installers and missing content; counts; `--runnable`; and
the upstream suites it generates."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from clawmark.catalog import load_suite, load_tasks
from clawmark.catalog.needs import Machine, counts, tree_needs
from clawmark.cli.main import app
from tests.unit.catalog.test_catalog_content import POINTER
from tests.unit.catalog.test_catalog_gui import RELEASE, SAMPLE

RULE = "# rule\n## 5. Checkpoint Rubric\n- 1.0 Done: it is done.\n"
SECRET = "ghp_real_looking_value_123"


def _task(root: Path, task_id: str, text: str, files: dict[str, str] | None = None, **spec) -> None:
    category = {"1": "105_cross_platform", "2": "205_cross_platform_zh"}[task_id[5]]
    package = root / "injection" / category / task_id
    for rel, body in {"references/eval_rule.md": RULE, **(files or {})}.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(body)
    file = root / "tasks" / category / f"{task_id}.yaml"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(yaml.safe_dump({"task_id": task_id, "category": category, "task": text,
                                    "references": ["references/eval_rule.md"], **spec}, allow_unicode=True))


def _tree(root: Path) -> Path:
    _task(root, "task_105_01_offline", "Sum the numbers in sources/a.csv.", {"sources/a.csv": "1\n"})
    _task(root, "task_105_02_web", "Compare prices on https://www.amazon.com/dp/X and bestbuy.com.")
    _task(root, "task_205_02_web", "比较两个商品的价格。")  # the mirror: no web word of its own
    _task(root, "task_105_03_account", "List my open pull requests.", {".privacy": "GITHUB_TOKEN\nSNAPSHOT_MODE\n"})
    _task(root, "task_105_04_desktop", "Open it in the real Obsidian desktop app.")
    _task(root, "task_105_05_installer", "Use jq on sources/a.json.",
          {"sources/a.json": "{}", "services/setup/install.sh": "curl -fsSL https://github.com/x/jq/releases/jq -o jq\n"
                                                                 "pip download --index-url https://pypi.org/simple jq\n"},
          services=[{"name": "setup", "start": "bash install.sh", "oneshot": True}])
    _task(root, "task_105_06_lfs", "Read sources/paper.pdf.", {"sources/paper.pdf": POINTER})
    return root


def test_each_need_is_read_off_the_package(tmp_path: Path) -> None:
    needs = {n.task_id: n for n in tree_needs(load_tasks(_tree(tmp_path)), {"GITHUB_TOKEN": "YOUR_TOKEN_HERE"})}
    offline, web, mirror = needs["task_105_01_offline"], needs["task_105_02_web"], needs["task_205_02_web"]
    assert offline.offline and not (offline.web or offline.gui or offline.credentials or offline.installers)
    assert web.web and web.hosts == ["bestbuy.com", "www.amazon.com"] and not web.offline
    assert mirror.web and mirror.hosts == []  # its English mirror names the hosts
    account = needs["task_105_03_account"]
    assert account.credentials == ["GITHUB_TOKEN"] and account.credentials_missing == {"GITHUB_TOKEN": "placeholder"}
    assert account.snapshot  # SNAPSHOT_MODE: an offline path, not a credential
    assert needs["task_105_04_desktop"].gui and needs["task_105_04_desktop"].gui_reason == "task text 'desktop app'"
    assert needs["task_105_05_installer"].installers == ["github.com"]  # pypi.org is a registry
    assert needs["task_105_06_lfs"].missing_content == ["sources/paper.pdf"]
    runnable = {n.task_id for n in needs.values() if n.runnable_on(Machine(web=False))}
    assert runnable == {"task_105_01_offline", "task_105_04_desktop"}
    assert {n.task_id for n in needs.values() if n.runnable_on(Machine(web=False, gui=False))} == {"task_105_01_offline"}
    in_snapshot_mode = {n.task_id for n in needs.values() if n.runnable_on(Machine(web=False, snapshot=True))}
    assert in_snapshot_mode == runnable | {"task_105_03_account"}  # its offline path needs no token
    table = counts(list(needs.values()), Machine(web=False))
    assert (table["web"]["en"], table["web"]["zh"], table["offline"]["all"], table["runnable"]["all"]) == (1, 1, 3, 2)


def test_the_cli_gives_json_counts_and_runnable_ids_without_showing_a_secret(tmp_path: Path) -> None:
    tree, env_file = _tree(tmp_path / "tree"), tmp_path / "privacy.local.env"
    env_file.write_text(f"# mine\nGITHUB_TOKEN={SECRET}\n")
    runner = CliRunner()
    listed = runner.invoke(app, ["catalog", "needs", str(tree), "--json", "--no-web", "--env-file", str(env_file)])
    assert listed.exit_code == 0, listed.output
    rows = {r["task_id"]: r for r in json.loads(listed.stdout)}
    assert {"task_id", "gui", "web", "credentials", "missing_content"} <= set(rows["task_105_02_web"])
    assert rows["task_105_03_account"]["credentials_missing"] == {} and SECRET not in listed.output
    assert "web: en 1, zh 1, all 2" in listed.stderr and "runnable: en 3, zh 0, all 3" in listed.stderr
    ids = runner.invoke(app, ["catalog", "needs", str(tree), "--runnable", "--no-web", "--no-gui"])
    assert ids.stdout.splitlines() == ["- task_105_01_offline"]
    assert "1 of 7 task(s) runnable here (web no, desktop no)" in ids.stderr
    live = runner.invoke(app, ["catalog", "needs", str(tree), "--runnable", "--web", "--env-file", str(env_file)])
    assert len(live.stdout.splitlines()) == 6  # all but the LFS pointer's task
    bad = runner.invoke(app, ["catalog", "needs", str(tree), "--suite", "everything"])
    assert bad.exit_code == 2 and "--suite: expected one of ucb-offline, ucb-offline-no-gui" in bad.output


def test_the_upstream_suites_hold_exactly_the_offline_tasks_of_the_tree() -> None:
    tree = RELEASE if (RELEASE / "tasks" / "001_smoketest").is_dir() else SAMPLE
    needs = tree_needs(load_tasks(tree), {})
    ids = {n.task_id for n in needs}
    offline = load_suite("ucb-offline")
    no_gui = load_suite("ucb-offline-no-gui")
    assert offline.tree == no_gui.tree == "uniclawbench"
    assert {t for t in offline.tasks if t in ids} == {n.task_id for n in needs if n.offline}
    assert {t for t in no_gui.tasks if t in ids} == {n.task_id for n in needs if n.offline and not n.gui}
    if tree == RELEASE:
        assert (len(offline.tasks), len(no_gui.tasks)) == (201, 195)


# Representative sample tasks and what they need, as their text says: live sites named or to be
# browsed; the web forbidden in the clause that names it (both languages); a site's name only
# for material already in the package (snapshot files, downloaded papers).
SAMPLE_WEB = {"task_102_01_polymarket_live_odds": True, "task_103_05_mcp_server_landscape": True,
              "task_205_10_tokyo_web_plan": True, "task_104_32_home_of_the_blues_lrc": False,
              "task_204_33_house_of_rising_sun_lrc": False, "task_101_35_en_zh_tech_daily": False,
              "task_201_31_postmortem_merge": False}


def test_the_web_rule_reads_what_a_sample_task_asks_not_every_web_word(tmp_path: Path) -> None:
    needs = {n.task_id: n.web for n in tree_needs(load_tasks(SAMPLE), {})}
    assert {task_id: needs[task_id] for task_id in SAMPLE_WEB} == SAMPLE_WEB
    _task(tmp_path, "task_105_01_lrc", "Transcribe sources/song.mp3. Do not use lyrics from the internet or websites.")
    _task(tmp_path, "task_205_01_svg", "只基于这张图片重建 SVG。不要联网搜索，不要从网页推断原图。")
    _task(tmp_path, "task_105_02_avoid", "Find the original archival record (not a Wikipedia copy) of this photo.")
    _task(tmp_path, "task_105_03_packaged", "Use the repo skill for the GitHub trending file in sources/.")
    _task(tmp_path, "task_105_04_open", "Open a web browser: look up the product and compare prices.")
    needs = {n.task_id: n.web for n in tree_needs(load_tasks(tmp_path), {})}
    assert needs == {"task_105_01_lrc": False, "task_205_01_svg": False, "task_105_02_avoid": True,
                     "task_105_03_packaged": False, "task_105_04_open": True}
