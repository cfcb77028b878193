"""A sweep file's `closed_loop.web` and `closed_loop.base_skills`: loaded into the attempt
protocol (paths relative to the file), part of every cell key (the archive through the task
hash in replay), and bad values refused in one line naming the field."""

from __future__ import annotations

import pytest
import yaml

from clawmark.catalog import CatalogError, load_tasks
from clawmark.settings import TASKS_CATALOG
from clawmark.sweeps import SweepSpec, load_spec
from clawmark.sweeps.closed_loop_plan import cell_keys
from clawmark.webproxy import IRREVERSIBLE_RULES, archive
from clawmark.webproxy.proxied_task import web_task_hash

TASK = "en_101_sales_total"
BASE = {"sweep_id": "live", "instances": None, "claws": ["reference"], "models": ["scripted/x"]}


def _write(tmp_path, closed_loop: dict, name: str = "sweep.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump({**BASE, "closed_loop": {"tasks": [TASK], **closed_loop}}))
    return path


def _key(tmp_path, closed_loop: dict, name: str = "sweep.yaml") -> str:
    spec = load_spec(_write(tmp_path, closed_loop, name))
    tasks = [t for t in load_tasks(spec.closed_loop.tasks_dir) if t.task_id == TASK]
    return cell_keys(spec, tasks)[0][-1]


def test_web_and_base_skills_load_into_the_protocol(tmp_path):
    skill = tmp_path / "skills" / "house-style"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("# house style\n")
    rule = {"id": "signup", "methods": ["POST"], "url": "/signup"}
    spec = load_spec(_write(tmp_path, {"web": {"mode": "replay", "archive": "archives", "block": [rule]},
                                       "base_skills": ["browser-control", "skills/house-style"]}))
    attempt = spec.closed_loop.attempt
    assert attempt.web.mode == "replay" and attempt.web.archive_root == tmp_path / "archives"
    assert [r.id for r in attempt.web.block] == [r.id for r in IRREVERSIBLE_RULES] + ["signup"]
    assert attempt.base_skills == [(TASKS_CATALOG / "base_skills" / "browser-control").resolve(), skill.resolve()]
    again = SweepSpec.model_validate(spec.model_dump(mode="json"))  # what the sweep flow receives
    assert again.closed_loop.attempt == attempt

    off = load_spec(_write(tmp_path, {"web": {"mode": "off"}}, "off.yaml"))
    assert off.closed_loop.attempt.web is None


def test_what_replay_matches_on_is_set_in_the_sweep_and_keys_its_cells(tmp_path):
    default = load_spec(_write(tmp_path, {"web": {"mode": "replay"}})).closed_loop.attempt.web
    assert (default.match_headers, default.match_cookies) == (list(archive.DEFAULT_MATCH_HEADERS), True)
    chosen = {"mode": "replay", "match_headers": ["accept", "x-region"], "match_cookies": False}
    web = load_spec(_write(tmp_path, {"web": chosen}, "chosen.yaml")).closed_loop.attempt.web
    assert (web.match_headers, web.match_cookies) == (["accept", "x-region"], False)
    assert _key(tmp_path, {"web": chosen}, "chosen.yaml") != _key(tmp_path, {"web": {"mode": "replay"}})


@pytest.mark.parametrize(("closed_loop", "field", "expected"), [
    ({"web": {"mode": "replay-only"}}, "closed_loop.web.mode", "'off', 'live', 'record', 'replay' or 'replay-or-live'"),
    ({"web": {"mode": "live", "block": [{"id": "x", "url": "(["}]}}, "closed_loop.web.block.0.url", "not a valid regex"),
    ({"web": {"mode": "live", "block": [{"id": "x", "method": "POST", "url": "/a"}]}}, "closed_loop.web.block.0.method", "no such field"),
    ({"web": {"mode": "live", "archiv": "a"}}, "closed_loop.web.archiv", "no such field"),
    ({"base_skills": ["no-such-skill"]}, "closed_loop.base_skills", "a base skill name (agent-browser-control, apt-package-manager, browser-control"),
    ({"web": {"mode": "record"}, "attempt": {"network_policy": "registries-only"}}, "closed_loop", "network_policy none or full"),
    ({"web": {"mode": "record"}, "attempt": {"web": {"mode": "live"}}}, "closed_loop", "give the web proxy once"),
])
def test_bad_values_name_the_field(tmp_path, closed_loop, field, expected):
    with pytest.raises(CatalogError) as caught:
        load_spec(_write(tmp_path, closed_loop))
    assert caught.value.field == field and expected in caught.value.expected, str(caught.value)
    assert str(caught.value).startswith(str(tmp_path / "sweep.yaml"))


def test_the_web_protocol_and_base_skills_are_in_the_cell_key(tmp_path):
    skill = tmp_path / "skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text("v1\n")
    keys = {
        "none": _key(tmp_path, {}),
        "off": _key(tmp_path, {"web": {"mode": "off"}}, "off.yaml"),
        "live": _key(tmp_path, {"web": {"mode": "live"}}, "live.yaml"),
        "live-no-rules": _key(tmp_path, {"web": {"mode": "live", "irreversible": False}}, "bare.yaml"),
        "record": _key(tmp_path, {"web": {"mode": "record"}}, "record.yaml"),
        "skill": _key(tmp_path, {"base_skills": [str(skill)]}, "skill.yaml"),
    }
    assert keys["off"] == keys["none"]  # off is no proxy at all
    assert len(set(keys.values())) == len(keys) - 1
    (skill / "SKILL.md").write_text("v2\n")
    assert _key(tmp_path, {"base_skills": [str(skill)]}, "skill.yaml") != keys["skill"]  # an edited skill re-keys


def test_in_replay_the_tasks_archive_is_part_of_its_hash_and_key(tmp_path):
    replay = {"web": {"mode": "replay", "archive": str(tmp_path / "archives")}}
    record = {"web": {"mode": "record", "archive": str(tmp_path / "archives")}}
    before = (_key(tmp_path, replay, "replay.yaml"), _key(tmp_path, record, "record.yaml"))
    archive.save(tmp_path / "archives" / TASK, "GET", "http://shop.test/", b"", 200, [], b"<h1>10 EUR</h1>")
    after = (_key(tmp_path, replay, "replay.yaml"), _key(tmp_path, record, "record.yaml"))
    assert after[0] != before[0] and after[1] == before[1]  # recording does not change what a record cell is
    spec = load_spec(tmp_path / "replay.yaml")
    task = next(t for t in load_tasks(spec.closed_loop.tasks_dir) if t.task_id == TASK)
    assert web_task_hash(task, spec.closed_loop.attempt.web) != task.content_hash()
