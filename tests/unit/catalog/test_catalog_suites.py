"""Suites: the bundled ones resolve against the catalog; bad suites name the file and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from clawmark.catalog import CatalogError, UnknownTask, load_suite
from clawmark.settings import TASKS_CATALOG
from tests.unit.catalog.test_catalog_swe import ROW
from tests.unit.catalog.test_catalog_tasks import make_task


def catalog(tmp_path: Path) -> Path:
    """A tiny catalog: one closed-loop task and one patch instance."""
    make_task(tmp_path / "closed_loop")
    (tmp_path / "swe").mkdir()
    (tmp_path / "swe" / "instances.jsonl").write_text(json.dumps(ROW) + "\n")
    (tmp_path / "suites").mkdir()
    return tmp_path


def write_suite(root: Path, name: str, **fields: object) -> Path:
    path = root / "suites" / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"name": name, **fields}))
    return path


@pytest.mark.parametrize("name, size", [("smoke", 4), ("closed-loop-all", 14)])
def test_bundled_closed_loop_suites_load_and_resolve(name: str, size: int) -> None:
    suite = load_suite(name, catalog_dir=TASKS_CATALOG)
    assert (suite.track, len(suite.tasks)) == ("closed_loop", size)


def test_mixed_suite_accepts_both_tracks(tmp_path: Path) -> None:
    root = catalog(tmp_path)
    write_suite(root, "mix", track="mixed", tasks=["demo_task", ROW["instance_id"]])
    assert load_suite("mix", catalog_dir=root).tasks == ["demo_task", ROW["instance_id"]]


def test_patch_suite_with_its_own_instance_file(tmp_path: Path) -> None:
    root = catalog(tmp_path)
    (root / "extra.jsonl").write_text(json.dumps(ROW | {"instance_id": "extra-1"}) + "\n")
    path = write_suite(root, "swe-x", track="patch", tasks=["extra-1"], instances="../extra.jsonl")
    assert load_suite(path).instances == (root / "extra.jsonl").resolve()


def test_unknown_id_for_the_track(tmp_path: Path) -> None:
    root = catalog(tmp_path)
    path = write_suite(root, "wrong", track="patch", tasks=[ROW["instance_id"], "demo_task"])
    with pytest.raises(UnknownTask) as err:
        load_suite("wrong", catalog_dir=root)
    assert (err.value.file, err.value.field) == (str(path.resolve()), "tasks[1]")
    assert "'demo_task'" in str(err.value)


@pytest.mark.parametrize("fields, field", [
    ({"track": "closed_loop"}, "tasks"),
    ({"track": "everything", "tasks": ["demo_task"]}, "track"),
    ({"track": "closed_loop", "tasks": ["demo_task", "demo_task"]}, "tasks"),
    ({"track": "closed_loop", "tasks": ["../x"]}, "tasks"),
    ({"track": "closed_loop", "tasks": "demo_task"}, "tasks"),
])
def test_malformed_suite_names_the_field(tmp_path: Path, fields: dict, field: str) -> None:
    root = catalog(tmp_path)
    path = write_suite(root, "bad", **fields)
    with pytest.raises(CatalogError) as err:
        load_suite("bad", catalog_dir=root)
    assert (err.value.file, err.value.field) == (str(path), field)


def test_suite_name_must_match_its_file(tmp_path: Path) -> None:
    root = catalog(tmp_path)
    path = root / "suites" / "one.yaml"
    path.write_text(yaml.safe_dump({"name": "two", "track": "closed_loop", "tasks": ["demo_task"]}))
    with pytest.raises(CatalogError) as err:
        load_suite("one", catalog_dir=root)
    assert err.value.field == "name"


def test_missing_suite_file(tmp_path: Path) -> None:
    with pytest.raises(CatalogError) as err:
        load_suite("nope", catalog_dir=catalog(tmp_path))
    assert err.value.field == "<file>" and err.value.file.endswith("nope.yaml")
