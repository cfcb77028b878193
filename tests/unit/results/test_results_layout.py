"""AttemptLayout: named paths inside one folder per cell, and the atomic writer under it."""

from __future__ import annotations

import json

import pytest

from clawmark.results import AttemptLayout, UnsafeName, config_hash
from clawmark.fsio import atomic_write_bytes


def test_named_paths_live_in_the_cell_folder(tmp_path):
    layout = AttemptLayout(tmp_path, "sweep-1", "0123abcd")
    assert layout.dir == tmp_path / "sweep-1" / "0123abcd"
    names = {p.name for p in (layout.ledger, layout.decisions, layout.patch, layout.raw_patch, layout.report,
                              layout.eval_log, layout.config, layout.row_json)}
    assert names == {"ledger.jsonl", "decisions.jsonl", "patch.diff", "patch.raw.diff", "report.json", "eval.log",
                     "config.json", "row.json"}
    assert all(p.parent == layout.dir for p in (layout.logs, layout.transcript, layout.artifacts, layout.ledger))


def test_ensure_creates_folders_and_completion_needs_row_json(tmp_path):
    layout = AttemptLayout(tmp_path, "s", "k").ensure()
    assert layout.logs.is_dir() and layout.transcript.is_dir() and layout.artifacts.is_dir()
    assert not layout.is_complete()
    layout.row_json.write_text("{}")
    assert layout.is_complete()


def test_write_config_saves_json_and_returns_its_hash(tmp_path):
    layout = AttemptLayout(tmp_path, "s", "k")
    config = {"claw": "nop", "budget": {"seconds": 3600}}
    assert layout.write_config(config) == config_hash(config)
    assert json.loads(layout.config.read_text()) == config


@pytest.mark.parametrize("bad", ["../up", "a/b", "", ".hidden"])
def test_unsafe_names_are_refused(tmp_path, bad):
    with pytest.raises(UnsafeName):
        AttemptLayout(tmp_path, bad, "k")


def test_atomic_write_replaces_whole_file_and_leaves_no_temp(tmp_path):
    target = tmp_path / "x" / "f.json"
    atomic_write_bytes(target, b"first")
    atomic_write_bytes(target, b"second")
    assert target.read_bytes() == b"second" and [p.name for p in target.parent.iterdir()] == ["f.json"]
