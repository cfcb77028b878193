"""Protocol profiles (clawmark.claws.profiles): what each fixes per claw, where it reads its
prompts from, and how it reaches the adapter, the cell key, the row, config.json and the sweep."""

from __future__ import annotations

import json

import pytest

from clawmark.attempts.patch import PatchAttemptConfig, identity_fields
from clawmark.catalog.errors import CatalogError
from clawmark.claws import Budgets, claw_names
from clawmark.claws.profiles import (ProfileError, ProfileSource, ProfileUse, claw_for, load_profile, profile_names,
                                     profiled_claw)
from clawmark.results import AttemptRow
from clawmark.sweeps.spec import load_spec
from tests.support.attempt_fixtures import INI, INSTANCES
from tests.support.paths import FIXTURES, REPO

CHECKOUT = FIXTURES / "profile-checkout"
CSB = ProfileUse(name="csb-paper", sources={"csb_paper": ProfileSource(checkout=CHECKOUT)})
UCB = ProfileUse(name="ucb-paper")


def test_every_profile_names_real_claws_recipes_and_settings():
    assert {"clawmark", "ucb-paper", "csb-paper"} <= set(profile_names())
    recipes = {p.name for p in (REPO / "images").iterdir() if (p / "Dockerfile").is_file()}
    for name in profile_names():
        profile = load_profile(name)
        use = ProfileUse(name=name, sources={profile.checkout_key: ProfileSource(checkout=CHECKOUT)}
                         if profile.checkout_key else {})
        for claw_name, pins in profile.claws.items():
            assert claw_name in claw_names()
            assert pins.image is None or pins.image in recipes
            claw, budgets = profiled_claw(claw_name, {}, Budgets(), use)  # unknown settings would raise
            assert claw.config.model_dump(include=set(pins.settings)) == pins.settings
            assert budgets.model_dump(include=set(pins.budgets.model_dump(exclude_none=True))) == \
                pins.budgets.model_dump(exclude_none=True)


def test_ucb_paper_pins_the_versions_and_images_upstream_built():
    openclaw, budgets = profiled_claw("openclaw", {}, Budgets(), UCB)
    nanobot, nano_budgets = profiled_claw("nanobot", {}, Budgets(), UCB)
    assert (openclaw.version, openclaw.needs_image_layer) == ("2026.3.11", "claw-openclaw-2026.3.11")
    assert (nanobot.version, nanobot.needs_image_layer) == ("0.1.5.post3", "claw-nanobot-0.1.5.post3")
    assert (budgets.seconds, nano_budgets.steps, nano_budgets.cost_usd) == (1200, 200, Budgets().cost_usd)
    assert openclaw.config.native_browser is False  # agent-browser instead, as upstream
    with pytest.raises(ProfileError, match="does not run claw 'hermes'"):
        profiled_claw("hermes", {}, Budgets(), UCB)


def test_csb_paper_reads_its_prompt_from_the_users_checkout(tmp_path):
    claw, budgets = profiled_claw("openclaw", {}, Budgets(seconds=60, steps=7), CSB)
    prompt = claw.render_prompt(problem_statement="THE-ISSUE", base_commit="abc123", workspace="/testbed")
    assert prompt.startswith("PROFILE-FIXTURE-PROMPT") and "THE-ISSUE" in prompt and "abc123" in prompt
    assert (budgets.steps, budgets.seconds) == (300, 3600)
    assert len(claw.config.deny_tools) == 13 and "web_fetch" in claw.config.deny_tools
    assert claw.settings()["profile_fixed"]["prompt"] == "prompts/default.txt"
    with pytest.raises(ProfileError, match=r"profiles\.csb_paper\.checkout: .*set profiles\.csb_paper\.checkout"):
        profiled_claw("openclaw", {}, Budgets(), ProfileUse(name="csb-paper"))
    elsewhere = ProfileUse(name="csb-paper", sources={"csb_paper": ProfileSource(checkout=CHECKOUT / "prompts")})
    with pytest.raises(ProfileError, match=r"profiles\.csb_paper\.checkout: .*prompts/default\.txt"):
        profiled_claw("openclaw", {}, Budgets(), elsewhere)
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "default.txt").write_text("Fix the bug.\n")  # not a template of an issue
    no_issue = ProfileUse(name="csb-paper", sources={"csb_paper": ProfileSource(checkout=tmp_path)})
    with pytest.raises(ProfileError, match=r"has no \{problem_statement\} placeholder"):
        profiled_claw("openclaw", {}, Budgets(), no_issue)


def test_a_sweep_setting_cannot_override_what_the_profile_fixed():
    with pytest.raises(ProfileError, match="deny_tools of openclaw are fixed by profile 'csb-paper'"):
        profiled_claw("openclaw", {"deny_tools": []}, Budgets(), CSB)
    claw, _ = profiled_claw("openclaw", {"grace_s": 5.0}, Budgets(), CSB)  # what it leaves alone stays the sweep's
    assert claw.config.grace_s == 5.0


def test_the_profile_is_in_the_cell_key_the_row_and_config_json(tmp_path):
    from clawmark.attempts.patch import open_patch_attempt
    from clawmark.results import ResultStore

    rows = {}
    for use in (ProfileUse(), UCB):
        claw, config = claw_for("openclaw", PatchAttemptConfig(profile=use))
        rows[use.name] = AttemptRow(status="infra_error", **identity_fields(INSTANCES[INI], claw, "scripted/x", 0,
                                                                           "s", config))
    assert rows["clawmark"].cell_key != rows["ucb-paper"].cell_key
    assert (rows["clawmark"].claw_profile, rows["clawmark"].claw_profile_fixed) == ("clawmark", "{}")
    fixed = json.loads(rows["ucb-paper"].claw_profile_fixed)
    assert (rows["ucb-paper"].claw_version, fixed["version"], fixed["budgets"]) == ("2026.3.11", "2026.3.11",
                                                                                   {"seconds": 1200.0})
    store = ResultStore(tmp_path / "results")
    state = open_patch_attempt(INSTANCES[INI], "hermes", "scripted/x", 0, store, "s", None,
                               config=PatchAttemptConfig(profile=CSB))
    saved = json.loads(state.layout.config.read_text())
    assert saved["claw"]["profile"] == "csb-paper"
    assert saved["claw"]["profile_fixed"]["settings"]["toolsets"] == ["terminal", "file"]
    assert saved["claw"]["profile_fixed"]["prompt"] == "prompts/default.txt"
    assert saved["protocol"]["budgets"]["steps"] == 300 and saved["protocol"]["profile"]["name"] == "csb-paper"


def test_a_sweep_names_its_profile_and_checkout(tmp_path):
    import shutil

    shutil.copytree(CHECKOUT, tmp_path / "upstream")
    sweep = tmp_path / "sweeps" / "sweep.yaml"  # a relative checkout is the sweep file's neighbour
    sweep.parent.mkdir()
    sweep.write_text("sweep_id: p\nclaws: [openclaw]\nmodels: [scripted/x]\nprofile: csb-paper\n"
                     "profiles: {csb_paper: {checkout: ../upstream}}\n")
    spec = load_spec(sweep)
    assert spec.attempt.profile.name == "csb-paper"
    assert spec.attempt.profile.sources["csb_paper"].checkout.resolve() == (tmp_path / "upstream").resolve()
    sweep.write_text("sweep_id: p\nclaws: [openclaw]\nmodels: [scripted/x]\nprofile: nature-paper\n")
    with pytest.raises(CatalogError, match="profile"):
        load_spec(sweep)
    sweep.write_text("sweep_id: p\nclaws: [openclaw, oracle]\nmodels: [scripted/x]\nprofile: csb-paper\n")
    with pytest.raises(CatalogError, match=r"sweep\.yaml.*profiles\.csb_paper\.checkout"):
        load_spec(sweep)
    sweep.write_text("sweep_id: p\nclaws: [openclaw, nanobot, oracle]\nmodels: [scripted/x]\nprofile: ucb-paper\n")
    assert load_spec(sweep).claws == ["openclaw", "nanobot", "oracle"]  # a baseline runs under every profile
    sweep.write_text("sweep_id: p\nclaws: [hermes]\nmodels: [scripted/x]\nprofile: ucb-paper\n")
    with pytest.raises(CatalogError, match="does not run claw 'hermes'"):
        load_spec(sweep)


@pytest.mark.parametrize(("claw", "setting", "value"), [("openclaw", "native_browser", False),
                                                        ("nanobot", "web_tools", False),
                                                        ("hermes", "toolsets", ["terminal", "file"]),
                                                        ("edict", "runtime_preface", True),
                                                        ("zeroclaw", "tool_filter", ["shell"]),
                                                        ("zeroclaw", "reasoning_effort", "xhigh")])
def test_a_profile_setting_enters_the_key_only_when_set(claw, setting, value):
    """Cells keyed before the profiles existed keep their keys: a profile-only setting at its
    default is not in a claw's settings; set, it is."""
    from clawmark.claws import get_claw

    assert setting not in get_claw(claw).settings()
    assert get_claw(claw, {setting: value}).settings()[setting] == value
