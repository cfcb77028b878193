"""Predictions files: one line per instance even after a resume (the upstream duplicate-line bug),
and malformed files name file:line:field while every valid line is kept."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from clawmark.swe.errors import PredictionsError
from clawmark.swe.predictions import Prediction, read_predictions, upsert_prediction, write_predictions


def _p(iid: str, patch: str | None = "diff --git a/x b/x\n", model: str = "oracle") -> Prediction:
    return Prediction(instance_id=iid, model_name_or_path=model, model_patch=patch)


def test_resume_rewrites_the_line_instead_of_appending(tmp_path):
    path = tmp_path / "preds.jsonl"
    upsert_prediction(path, _p("a__b-1", None))  # timed out: empty prediction written
    upsert_prediction(path, _p("a__b-2"))
    upsert_prediction(path, _p("a__b-1", "diff --git a/y b/y\n"))  # the resume writes it again
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [row["instance_id"] for row in lines] == ["a__b-1", "a__b-2"]
    assert lines[0]["model_patch"] == "diff --git a/y b/y\n"
    assert read_predictions(path).problems == []


def test_concurrent_upserts_keep_every_instance_once(tmp_path):
    path = tmp_path / "preds.jsonl"
    ids = [f"r__p-{i}" for i in range(20)]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda iid: upsert_prediction(path, _p(iid)), ids + ids))
    assert sorted(json.loads(line)["instance_id"] for line in path.read_text().splitlines()) == sorted(ids)


def test_malformed_lines_are_named_and_valid_lines_kept(tmp_path):
    path = tmp_path / "preds.jsonl"
    good = json.dumps(_p("ok__ok-1").model_dump())
    path.write_text("\n".join([
        good,
        "{not json",
        json.dumps({"instance_id": "x__y-2", "model_patch": "d"}),
        json.dumps({"instance_id": 7, "model_name_or_path": "m", "model_patch": "d"}),
        "[1, 2]",
        json.dumps({"instance_id": "ok__ok-3", "model_name_or_path": "m", "model_patch": None}),
    ]) + "\n")
    read = read_predictions(path)
    assert sorted(read.by_id) == ["ok__ok-1", "ok__ok-3"]
    assert read.by_id["ok__ok-3"].is_empty
    assert read.problems[0].startswith(f"{path}:2: <line>: expected one JSON object")
    assert read.problems[1].startswith(f"{path}:3: model_name_or_path: expected a value")
    assert read.problems[2].startswith(f"{path}:4: instance_id: expected a valid string")
    assert read.problems[3].startswith(f"{path}:5: <line>: expected a JSON object (got list)")
    assert len(read.problems) == 4
    with pytest.raises(PredictionsError, match="4 problems"):
        read.raise_if_problems()


def test_duplicate_lines_in_an_upstream_file_are_reported_and_the_last_wins(tmp_path):
    path = tmp_path / "preds.jsonl"
    path.write_text(json.dumps(_p("a__b-1", "first").model_dump()) + "\n"
                    + json.dumps(_p("a__b-1", "second").model_dump()) + "\n")
    read = read_predictions(path)
    assert read.by_id["a__b-1"].model_patch == "second"
    assert read.problems == [f"{path}:2: instance_id: expected one line per instance ('a__b-1' also at line 1; "
                             "the later line is used)"]


def test_json_list_files_and_missing_files(tmp_path):
    listed = tmp_path / "preds.json"
    listed.write_text(json.dumps([_p("a__b-1").model_dump(), _p("a__b-2").model_dump()]))
    assert sorted(read_predictions(listed).by_id) == ["a__b-1", "a__b-2"]
    missing = read_predictions(tmp_path / "nope.jsonl")
    assert missing.by_id == {} and "expected an existing predictions file" in missing.problems[0]


def test_write_is_sorted_and_unique(tmp_path):
    path = tmp_path / "out" / "preds.jsonl"
    write_predictions(path, [_p("b"), _p("a"), _p("b", "new")])
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["instance_id"], r["model_patch"]) for r in rows] == [("a", "diff --git a/x b/x\n"), ("b", "new")]
