"""Recipe discovery and content-hash tags: same content, same tag; any change, a new tag."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawmark.runtime.errors import ImageMissing
from clawmark.runtime.images import image_ref
from clawmark.runtime.recipes import discover, repository, tree_digest


def write_recipes(root: Path) -> Path:
    (root / "base").mkdir(parents=True)
    (root / "base" / "rootfs.sh").write_text("echo rootfs\n")
    (root / "lang").mkdir()
    (root / "lang" / "Dockerfile").write_text("ARG PARENT\nFROM ${PARENT}\n")
    (root / "lang" / "recipe.yaml").write_text("parent: base\nlabels: {team: x}\n")
    (root / "notes").mkdir()  # no Dockerfile, no rootfs.sh: not a recipe
    return root


def test_discovers_recipe_folders_with_parent_and_labels(tmp_path):
    recipes = discover(write_recipes(tmp_path))
    assert sorted(recipes) == ["base", "lang"]
    assert recipes["lang"].parent == "base" and recipes["lang"].labels == {"team": "x"}
    assert recipes["base"].is_rootfs and not recipes["lang"].is_rootfs


def test_same_content_gives_the_same_tag(tmp_path):
    one, two = write_recipes(tmp_path / "one"), write_recipes(tmp_path / "two")
    assert image_ref("lang", discover(one)) == image_ref("lang", discover(two))
    assert image_ref("lang", discover(one)).startswith("clawmark/lang:")
    assert len(image_ref("lang", discover(one)).rsplit(":", 1)[1]) == 12


def test_content_change_gives_a_new_tag(tmp_path):
    root = write_recipes(tmp_path)
    before = image_ref("lang", discover(root))
    (root / "lang" / "Dockerfile").write_text("ARG PARENT\nFROM ${PARENT}\nRUN true\n")
    assert image_ref("lang", discover(root)) != before


def test_parent_change_gives_children_a_new_tag(tmp_path):
    root = write_recipes(tmp_path)
    lang_before, base_before = image_ref("lang", discover(root)), image_ref("base", discover(root))
    (root / "base" / "extra.conf").write_text("x=1\n")
    assert image_ref("base", discover(root)) != base_before
    assert image_ref("lang", discover(root)) != lang_before


def test_exec_bit_and_file_names_count(tmp_path):
    (tmp_path / "a").write_text("same")
    plain = tree_digest(tmp_path)
    (tmp_path / "a").chmod(0o755)
    executable = tree_digest(tmp_path)
    (tmp_path / "a").rename(tmp_path / "b")
    assert len({plain, executable, tree_digest(tmp_path)}) == 3


def test_caches_are_ignored(tmp_path):
    (tmp_path / "Dockerfile").write_text("FROM x\n")
    before = tree_digest(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.pyc").write_bytes(b"\0")
    assert tree_digest(tmp_path) == before


def test_unknown_recipe_and_bad_recipe_yaml_are_clear(tmp_path):
    root = write_recipes(tmp_path)
    with pytest.raises(ImageMissing, match="no image recipe named 'nope'"):
        image_ref("nope", discover(root))
    (root / "lang" / "recipe.yaml").write_text("- just\n- a list\n")
    with pytest.raises(ImageMissing, match="recipe.yaml: expected a mapping"):
        discover(root)


def test_repository_names_are_valid_for_docker():
    assert repository("django__django-11099") == "clawmark/django__django-11099"
    assert repository("Owner/Repo Name!") == "clawmark/owner-repo-name"


def test_bundled_recipes_form_the_expected_tree():
    recipes = discover()
    assert {"base", "python", "node", "go", "rust"} <= set(recipes)
    assert recipes["base"].is_rootfs and recipes["base"].parent is None
    assert all(recipes[name].parent == "base" for name in ("python", "node", "go", "rust"))


def test_a_broken_sibling_recipe_does_not_block_others(tmp_path, monkeypatch):
    root = write_recipes(tmp_path)
    (root / "claw-broken").mkdir()
    (root / "claw-broken" / "Dockerfile").write_text("FROM x\n")
    (root / "claw-broken" / "recipe.yaml").write_text("labels: [not, a, mapping]\n")
    monkeypatch.setenv("CLAWMARK_IMAGES_DIR", str(root))
    assert image_ref("lang") == image_ref("lang", {n: r for n, r in discover_ok(root).items()})
    with pytest.raises(ImageMissing, match="claw-broken/recipe.yaml: field `labels`"):
        discover(root)


def discover_ok(root: Path):
    from clawmark.runtime.recipes import load_recipe

    return {name: load_recipe(root / name) for name in ("base", "lang")}


def test_parent_cycle_is_a_clear_error(tmp_path):
    root = write_recipes(tmp_path)
    (root / "base" / "recipe.yaml").write_text("parent: lang\n")
    with pytest.raises(ImageMissing, match="cycle: lang -> base -> lang"):
        image_ref("lang", discover(root))
