"""SWE-bench instance loading: the shared real datasets and every error path of the loader."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from clawmark.catalog import CatalogError, load_id_list, load_instances, load_languages

SHARED = Path("/work/shared/datasets/swebench")

ROW = {
    "repo": "acme/widgets", "instance_id": "acme__widgets-1", "base_commit": "abc123",
    "patch": "diff --git a/x b/x\n", "test_patch": "diff --git a/t b/t\n",
    "problem_statement": "It breaks.", "FAIL_TO_PASS": '["t::a"]', "PASS_TO_PASS": ["t::b"],
}


def write_jsonl(path: Path, *rows: dict | str) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("name, count", [
    ("SWE-bench_Multilingual.test.parquet", 300),
    ("SWE-bench_Verified.test.parquet", 500),
    ("claw_swe_bench_full350.jsonl", 350),
])
def test_shared_datasets_load_with_list_typed_test_names(name: str, count: int) -> None:
    instances = load_instances(SHARED / name)
    assert len(instances) == count
    assert len({i.instance_id for i in instances}) == count
    for instance in instances:
        assert isinstance(instance.FAIL_TO_PASS, list) and isinstance(instance.PASS_TO_PASS, list)
        assert all(isinstance(t, str) for t in instance.FAIL_TO_PASS + instance.PASS_TO_PASS)
    assert sum(bool(i.FAIL_TO_PASS) for i in instances) >= count - 1  # one Multilingual row has none


def test_verified_json_string_lists_decode_to_the_same_names_as_the_raw_column() -> None:
    raw = pq.read_table(SHARED / "SWE-bench_Verified.test.parquet").slice(0, 1).to_pylist()[0]
    instance = load_instances(SHARED / "SWE-bench_Verified.test.parquet")[0]
    assert instance.FAIL_TO_PASS == json.loads(raw["FAIL_TO_PASS"])
    assert instance.difficulty == raw["difficulty"]


def test_id_lists_and_language_table_match_the_350_set() -> None:
    multilingual = load_id_list(SHARED / "claw_multilingual_300_instances.txt")
    verified = load_id_list(SHARED / "claw_verified_mini_50.txt")
    languages = load_languages(SHARED / "claw_swe_bench_full350_languages.tsv")
    full = {i.instance_id for i in load_instances(SHARED / "claw_swe_bench_full350.jsonl")}
    assert (len(multilingual), len(verified)) == (300, 50)
    assert set(multilingual) | set(verified) == full == set(languages)
    assert languages["django__django-11790"] == "Python"


def test_json_list_keeps_extra_columns_and_resolves_path_extras(tmp_path: Path) -> None:
    row = dict(ROW, repo_bundle="repos/w.bundle", image_recipe="img", leaderboard_note="kept")
    (tmp_path / "rows.json").write_text(json.dumps([row]))
    [instance] = load_instances(tmp_path / "rows.json")
    assert instance.repo_bundle == tmp_path.resolve() / "repos/w.bundle"
    assert instance.image_recipe == tmp_path.resolve() / "img"
    assert instance.model_extra == {"leaderboard_note": "kept"}
    assert instance.FAIL_TO_PASS == ["t::a"] and instance.hints_text == ""


def test_parquet_with_native_lists_and_numeric_version(tmp_path: Path) -> None:
    row = dict(ROW, FAIL_TO_PASS=["a", "b"], PASS_TO_PASS=[], version=0.12)
    pq.write_table(pa.Table.from_pylist([row]), tmp_path / "rows.parquet")
    [instance] = load_instances(tmp_path / "rows.parquet")
    assert instance.FAIL_TO_PASS == ["a", "b"] and instance.version == "0.12"


def assert_names(err: pytest.ExceptionInfo[CatalogError], path: Path, field: str, line: int | None) -> None:
    assert err.value.file == str(path) and err.value.field == field and err.value.line == line
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"{path}:{line}: {field}: expected ")


def test_missing_required_field_names_file_line_and_field(tmp_path: Path) -> None:
    bad = {k: v for k, v in ROW.items() if k != "base_commit"}
    path = write_jsonl(tmp_path / "i.jsonl", ROW | {"instance_id": "ok-1"}, bad)
    with pytest.raises(CatalogError) as err:
        load_instances(path)
    assert_names(err, path, "base_commit", 2)
    assert "missing" in err.value.expected


def test_wrong_type_of_test_list(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "i.jsonl", ROW | {"PASS_TO_PASS": 7})
    with pytest.raises(CatalogError) as err:
        load_instances(path)
    assert_names(err, path, "PASS_TO_PASS", 1)


def test_undecodable_json_string_test_list(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "i.jsonl", ROW | {"FAIL_TO_PASS": "[not json"})
    with pytest.raises(CatalogError) as err:
        load_instances(path)
    assert_names(err, path, "FAIL_TO_PASS", 1)


def test_bad_jsonl_line(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "i.jsonl", ROW, "{oops")
    with pytest.raises(CatalogError) as err:
        load_instances(path)
    assert_names(err, path, "<line>", 2)


def test_bad_instance_id_and_duplicate_id(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "i.jsonl", ROW | {"instance_id": "../evil"})
    with pytest.raises(CatalogError) as err:
        load_instances(path)
    assert_names(err, path, "instance_id", 1)
    path = write_jsonl(tmp_path / "d.jsonl", ROW, ROW)
    with pytest.raises(CatalogError) as err:
        load_instances(path)
    assert_names(err, path, "instance_id", 2)


def test_non_object_row_and_unknown_format(tmp_path: Path) -> None:
    path = tmp_path / "i.json"
    path.write_text(json.dumps([ROW, [1, 2]]))
    with pytest.raises(CatalogError) as err:
        load_instances(path)
    assert_names(err, path, "<row>", 2)
    csv_path = tmp_path / "i.csv"
    csv_path.write_text("repo\n")
    with pytest.raises(CatalogError, match="i.csv: <file>: expected a .jsonl, .json or .parquet"):
        load_instances(csv_path)


def test_corrupt_parquet(tmp_path: Path) -> None:
    path = tmp_path / "i.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(CatalogError, match=r"i.parquet: <file>: expected a readable Parquet file"):
        load_instances(path)


def test_id_list_rejects_bad_and_repeated_ids(tmp_path: Path) -> None:
    path = tmp_path / "ids.txt"
    path.write_text("# comment\nok-1\n\nbad id\n")
    with pytest.raises(CatalogError) as err:
        load_id_list(path)
    assert_names(err, path, "id", 4)
    path.write_text("ok-1\nok-1\n")
    with pytest.raises(CatalogError) as err:
        load_id_list(path)
    assert_names(err, path, "id", 2)


def test_language_table_needs_its_columns(tmp_path: Path) -> None:
    path = tmp_path / "l.tsv"
    path.write_text("instance_id\trepo\nx\ty\n")
    with pytest.raises(CatalogError) as err:
        load_languages(path)
    assert_names(err, path, "<header>", 1)


def test_json_object_that_is_not_an_instance_list(tmp_path: Path) -> None:
    path = tmp_path / "leaderboard.json"
    path.write_text(json.dumps({"meta": {"name": "x"}, "rows": []}))
    with pytest.raises(CatalogError) as err:
        load_instances(path)
    assert err.value.field == "<file>" and "got a dict" in err.value.expected


def test_find_instances_keeps_the_order_asked_and_names_every_unknown_id():
    from clawmark.catalog import UnknownTask, find_instance, find_instances
    from clawmark.settings import TASKS_CATALOG

    path = TASKS_CATALOG / "swe" / "instances.jsonl"
    ids = [row.instance_id for row in load_instances(path)]
    assert [r.instance_id for r in find_instances(path, ids[::-1])] == ids[::-1]
    assert find_instance(path, ids[0]).instance_id == ids[0]
    with pytest.raises(UnknownTask) as err:
        find_instances(path, [ids[0], "ghost-1", "ghost-2"])
    assert str(path) in str(err.value) and "'ghost-1', 'ghost-2'" in str(err.value)
