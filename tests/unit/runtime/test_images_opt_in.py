"""Opt-in recipes (recipe.yaml `opt_in: true`, e.g. claw-zeroclaw): read from the recipe, skipped
by `clawmark images build --all`, refused when the flag is not a boolean."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from clawmark.cli.main import app
from clawmark.runtime.errors import ImageMissing
from clawmark.runtime.recipes import build_order, discover


def _recipe(root, name, meta):
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "Dockerfile").write_text("ARG PARENT\nFROM ${PARENT}\n")
    (folder / "recipe.yaml").write_text(meta)


def test_the_bundled_zeroclaw_recipe_is_opt_in_and_the_others_are_not():
    recipes = discover()
    assert recipes["claw-zeroclaw"].opt_in is True
    assert not recipes["claw-openclaw"].opt_in and not recipes["base"].opt_in


def test_build_all_names_the_opt_in_recipe_and_leaves_it_alone(tmp_path, monkeypatch):
    _recipe(tmp_path, "needs-a-binary", "opt_in: true\n")
    monkeypatch.setenv("CLAWMARK_IMAGES_DIR", str(tmp_path))
    result = CliRunner().invoke(app, ["images", "build", "--all"])
    assert result.exit_code == 0, result.output
    assert "needs-a-binary: opt-in recipe, built only when named" in result.output
    assert "all 0 images present; nothing to build" in result.output


@pytest.mark.parametrize("switch", ["opt_in", "build_first"])
def test_a_switch_that_is_not_a_boolean_is_refused_naming_the_file(tmp_path, switch):
    _recipe(tmp_path, "odd", f"{switch}: maybe\n")
    with pytest.raises(ImageMissing, match=rf"odd/recipe.yaml: field `{switch}` must be true or false"):
        discover(tmp_path)


def test_the_long_builds_start_first_and_each_group_keeps_its_order(tmp_path):
    for name, meta in (("a", ""), ("b", "build_first: true\n"), ("c", ""), ("d", "build_first: true\n")):
        _recipe(tmp_path, name, meta or "parent: null\n")
    assert build_order(["a", "b", "c", "d"], discover(tmp_path)) == ["b", "d", "a", "c"]
    bundled = discover()
    order = build_order(sorted(n for n, r in bundled.items() if not r.opt_in), bundled)
    assert order[:3] == ["claw-openclaw", "claw-openclaw-2026.3.11", "judge-codex"]  # the ~5-minute builds
