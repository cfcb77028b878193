"""Task packages cannot reach outside themselves (issue 12 part 3): links that leave their folder,
oversized packages, odd file names and very deep trees are refused with one clear line each."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clawmark.catalog import CatalogError, PathEscapeError, load_task
from clawmark.catalog.paths import PackageLimits
from tests.unit.catalog.test_catalog_tasks import make_task


def refused(path: Path, kind: type[CatalogError] = CatalogError, limits: PackageLimits | None = None) -> CatalogError:
    with pytest.raises(kind) as err:
        load_task(path, limits)
    assert "\n" not in str(err.value)
    assert err.value.file == str((path / "task.yaml").resolve())
    return err.value


@pytest.mark.parametrize("link, target, field", [
    ("sources/rule.md", "../references/eval_rule.md", "sources"),  # inside the package, but hidden
    ("sources/shadow", "/etc/shadow", "sources"),
    ("sources/deep/up", "../../../../..", "sources"),
    ("skills/lookup/peek.md", "../../references/eval_rule.md", "skills"),
    ("skills/lookup/other", "../../services/api/api.py", "skills"),  # out of its own skill folder
    ("services/api/answers", "../../references", "services"),
    ("references/etc", "/etc", "references"),
])
def test_symlink_leaving_its_folder_is_refused(tmp_path: Path, link: str, target: str, field: str) -> None:
    package = make_task(tmp_path)
    (package / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, package / link)
    error = refused(package, PathEscapeError)
    assert error.field == field and f"{link} -> {target}" in error.expected


def test_symlinks_within_their_folder_load(tmp_path: Path) -> None:
    package = make_task(tmp_path)
    os.symlink("data.txt", package / "sources/alias.txt")
    os.symlink("SKILL.md", package / "skills/lookup/README.md")
    assert load_task(package).task_id == "demo_task"


def test_top_level_folder_as_a_symlink_is_refused(tmp_path: Path) -> None:
    package = make_task(tmp_path)
    os.rename(package / "sources", package / "real_sources")
    os.symlink("real_sources", package / "sources")
    assert refused(package, PathEscapeError).expected.startswith("a real sources/ folder, not a symlink")


def test_oversized_package_against_a_configurable_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = make_task(tmp_path, files={"sources/big.bin": "x" * 4096})
    error = refused(package, limits=PackageLimits(max_bytes=4000))
    assert error.field == "<package>" and "at most 4000 bytes" in error.expected
    monkeypatch.setenv("CLAWMARK_MAX_PACKAGE_MB", "0.001")  # 1048 bytes
    assert "at most 1048 bytes" in refused(package).expected
    monkeypatch.setenv("CLAWMARK_MAX_PACKAGE_MB", "1")
    assert load_task(package).task_id == "demo_task"


def test_too_many_files(tmp_path: Path) -> None:
    package = make_task(tmp_path, files={f"sources/f{i}.txt": "." for i in range(10)})
    assert "and 8 files" in refused(package, limits=PackageLimits(max_files=8)).expected


def test_file_name_with_undecodable_bytes(tmp_path: Path) -> None:
    package = make_task(tmp_path)
    with open(os.fsencode(package / "sources") + b"/caf\xe9.txt", "w") as handle:
        handle.write("x")
    error = refused(package)
    assert error.field == "sources" and "file names in UTF-8" in error.expected and "xe9" in error.expected


@pytest.mark.parametrize("name", ["line\nbreak.txt", "bell\x07.txt", "tab\tname"])
def test_file_name_with_control_characters(tmp_path: Path, name: str) -> None:
    package = make_task(tmp_path)
    (package / "sources" / name).write_text("x")
    error = refused(package)
    assert error.field == "sources" and "without control characters" in error.expected


def test_very_deep_tree(tmp_path: Path) -> None:
    package = make_task(tmp_path)
    deep = package / "sources" / Path(*["d"] * 12)
    deep.mkdir(parents=True)
    error = refused(package, limits=PackageLimits(max_depth=10))
    assert error.field == "sources" and "at most 10 folders deep" in error.expected
    assert load_task(package, PackageLimits(max_depth=13)).task_id == "demo_task"


def test_chinese_file_names_are_plain_names(tmp_path: Path) -> None:
    package = make_task(tmp_path, files={"sources/图例.txt": "好"})
    assert load_task(package).sources_dir is not None
